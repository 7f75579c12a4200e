import JSON
import SignInProviders
import Testing

/// Discovery (OpenID Connect Discovery 1.0): the document's exact issuer (section 4.3), the endpoints sign-in needs,
/// what the provider must offer, and RFC 9207's `iss` parameter.
@Suite("Provider discovery documents and the authorization response's iss")
struct ProviderMetadataTests {
    static let issuer = "https://accounts.example.com"

    /// A discovery document as Google's reads, with `changes` applied (nil removes a member).
    static func document(_ changes: [String: JSONValue?] = [:]) -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("issuer", .string(issuer)), ("authorization_endpoint", "https://accounts.example.com/o/oauth2/v2/auth"),
            ("token_endpoint", "https://oauth2.example.com/token"),
            ("userinfo_endpoint", "https://openidconnect.example.com/v1/userinfo"),
            ("jwks_uri", "https://www.example.com/oauth2/v3/certs"),
            ("response_types_supported", ["code", "id_token"]),
            ("subject_types_supported", ["public"]), ("id_token_signing_alg_values_supported", ["RS256"]),
            ("code_challenge_methods_supported", ["plain", "S256"]),
        ]
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
        }
        return JSONValue.object(members).serialize()
    }

    static func read(_ changes: [String: JSONValue?], allowHTTP: Bool = false) throws(DiscoveryError)
        -> ProviderMetadata
    {
        try ProviderMetadata(document: document(changes), issuer: issuer, allowHTTP: allowHTTP)
    }

    @Test("the discovery URL is the issuer without its trailing slash, then /.well-known/openid-configuration")
    func discoveryURL() {
        #expect(
            ProviderMetadata.discoveryURL(issuer: "https://idp.example")
                == "https://idp.example/.well-known/openid-configuration")
        #expect(
            ProviderMetadata.discoveryURL(issuer: "https://idp.example/realms/a/")
                == "https://idp.example/realms/a/.well-known/openid-configuration")
    }

    @Test("a provider's document gives its endpoints")
    func reads() throws {
        let metadata = try Self.read([:])
        #expect(metadata.issuer == Self.issuer)
        #expect(metadata.authorizationEndpoint == "https://accounts.example.com/o/oauth2/v2/auth")
        #expect(metadata.tokenEndpoint == "https://oauth2.example.com/token")
        #expect(metadata.jwksURI == "https://www.example.com/oauth2/v3/certs")
        #expect(metadata.userinfoEndpoint == "https://openidconnect.example.com/v1/userinfo")
        #expect(metadata.endSessionEndpoint == nil && !metadata.issuerParameterSupported)
        let keycloak = try Self.read([
            "end_session_endpoint": "https://accounts.example.com/logout",
            "authorization_response_iss_parameter_supported": true, "userinfo_endpoint": nil,
            "code_challenge_methods_supported": nil,
        ])
        #expect(keycloak.endSessionEndpoint == "https://accounts.example.com/logout")
        #expect(keycloak.issuerParameterSupported && keycloak.userinfoEndpoint == nil)
    }

    @Test(
        "an issuer that is not exactly the configured one is refused (Discovery 4.3)",
        arguments: ["https://accounts.example.com/", "https://ACCOUNTS.example.com", "https://evil.example", ""])
    func issuerMismatch(stated: String) {
        let error = #expect(throws: DiscoveryError.self) { try Self.read(["issuer": .string(stated)]) }
        #expect(error == DiscoveryError(.issuerMismatch, member: "issuer", found: stated))
        let missing = #expect(throws: DiscoveryError.self) { try Self.read(["issuer": nil]) }
        #expect(missing == DiscoveryError(.issuerMismatch, member: "issuer", found: nil))
    }

    @Test(
        "a missing or bad endpoint is refused naming it",
        arguments: [
            ("token_endpoint", nil), ("authorization_endpoint", nil), ("jwks_uri", nil),
            ("token_endpoint", "http://oauth2.example.com/token"), ("jwks_uri", "/certs"), ("jwks_uri", 7),
            ("userinfo_endpoint", "javascript:alert(1)"), ("end_session_endpoint", "https://idp.example/#x"),
        ] as [(String, JSONValue?)])
    func badEndpoint(member: String, value: JSONValue?) {
        let error = #expect(throws: DiscoveryError.self) { try Self.read([member: value]) }
        #expect(error == DiscoveryError(.badEndpoint, member: member))
    }

    @Test("http endpoints are taken for a provider allowed on the private network")
    func httpAllowed() throws {
        let metadata = try Self.read(["token_endpoint": "http://127.0.0.1:5000/token"], allowHTTP: true)
        #expect(metadata.tokenEndpoint == "http://127.0.0.1:5000/token")
    }

    @Test(
        "a provider without the code flow, a usable id_token algorithm or PKCE's S256 is refused",
        arguments: [
            ("response_types_supported", ["id_token"]), ("id_token_signing_alg_values_supported", ["HS256", "none"]),
            ("code_challenge_methods_supported", ["plain"]), ("response_types_supported", "code"),
        ] as [(String, JSONValue)])
    func unsupported(member: String, value: JSONValue) {
        let error = #expect(throws: DiscoveryError.self) { try Self.read([member: value]) }
        #expect(error == DiscoveryError(.unsupported, member: member))
    }

    @Test("a document that is not a JSON object, or too long, is malformed")
    func malformed() {
        for document in [
            Array("[]".utf8), Array("{".utf8), Array(repeating: UInt8(ascii: " "), count: 70_000) + Array("{}".utf8),
        ] {
            let error = #expect(throws: DiscoveryError.self) {
                try ProviderMetadata(document: document, issuer: Self.issuer, allowHTTP: false)
            }
            #expect(error?.code == .malformed)
        }
        let error = #expect(throws: DiscoveryError.self) {
            try Self.read(["authorization_response_iss_parameter_supported": "yes"])
        }
        #expect(error?.code == .malformed)
    }

    @Test("RFC 9207: a present iss must be the issuer; an absent one only when the provider does not promise it")
    func responseIssuer() throws {
        let promising = try Self.read(["authorization_response_iss_parameter_supported": true])
        #expect(promising.acceptsResponseIssuer(Self.issuer))
        #expect(!promising.acceptsResponseIssuer(nil))
        #expect(!promising.acceptsResponseIssuer("https://evil.example"))
        #expect(!promising.acceptsResponseIssuer(Self.issuer + "/"))
        let silent = try Self.read([:])
        #expect(silent.acceptsResponseIssuer(nil) && silent.acceptsResponseIssuer(Self.issuer))
        #expect(!silent.acceptsResponseIssuer("https://evil.example"))
    }
}
