import Fetch
import JSON
import JWT

/// Why a provider's discovery document was refused: the member at fault, never the document's text.
public struct DiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// Too long, not JSON, or not an object.
        case malformed
        /// `issuer` is not exactly the configured issuer (OpenID Connect Discovery section 4.3): the document may be
        /// another provider's, and its tokens must not be taken for this one's.
        case issuerMismatch
        /// A required endpoint is missing, or an endpoint is not an absolute https URL without a fragment (http only
        /// for a provider allowed on the private network).
        case badEndpoint
        /// The provider does not offer what sign-in needs: the `code` response type, an id_token algorithm of RS256,
        /// ES256 or EdDSA, or PKCE's S256 when it lists its methods.
        case unsupported
    }

    /// What went wrong.
    public let code: Code
    /// The document's member at fault, e.g. `token_endpoint`.
    public let member: String
    /// For ``Code/issuerMismatch``, the issuer the provider's document states (at most ``foundLimit`` characters);
    /// nil when it states none, or for another code.
    public let found: String?

    /// The most of a stated issuer kept in ``found``.
    public static let foundLimit = 256

    /// Creates an error.
    public init(_ code: Code, member: String, found: String? = nil) {
        self.code = code
        self.member = member
        self.found = found.map { String($0.prefix(Self.foundLimit)) }
    }

    /// "<code>: <member>", and for an issuer mismatch the issuer the provider states, quoted with its control
    /// characters escaped (it is the provider's text).
    public var description: String {
        guard code == .issuerMismatch else { return "\(code.rawValue): \(member)" }
        guard let found else { return "\(code.rawValue): the provider's document states no issuer" }
        return "\(code.rawValue): the provider's document states issuer \(found.debugDescription)"
    }
}

/// The members of a provider's OpenID Connect discovery document (OpenID Connect Discovery 1.0 section 3) sign-in
/// uses, read and checked, pure: the caller fetches `discoveryURL(issuer:)`.
public struct ProviderMetadata: Sendable, Equatable {
    /// The longest document read, in bytes.
    public static let maximumDocumentLength = 64 * 1024

    /// `issuer`, equal to the configured issuer.
    public let issuer: String
    /// `authorization_endpoint`.
    public let authorizationEndpoint: String
    /// `token_endpoint`.
    public let tokenEndpoint: String
    /// `jwks_uri`.
    public let jwksURI: String
    /// `userinfo_endpoint`, when the provider has one.
    public let userinfoEndpoint: String?
    /// `end_session_endpoint` (RP-initiated logout), when the provider has one.
    public let endSessionEndpoint: String?
    /// `authorization_response_iss_parameter_supported` (RFC 9207 section 3): whether every authorization response
    /// carries `iss`, so that one without it is refused. Default false.
    public let issuerParameterSupported: Bool
    /// How the client authenticates at the token endpoint: `client_secret_basic` when
    /// `token_endpoint_auth_methods_supported` is absent (its default) or lists it, else `client_secret_post`.
    public let clientAuthentication: ProviderEndpoints.ClientAuthentication

    /// Where the discovery document of `issuer` is: the issuer without its trailing `/`, then
    /// `/.well-known/openid-configuration` (OpenID Connect Discovery section 4).
    public static func discoveryURL(issuer: String) -> String {
        var base = Substring(issuer)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/.well-known/openid-configuration"
    }

    /// Reads and checks `document`, the answer of ``discoveryURL(issuer:)``.
    /// - Parameters:
    ///   - document: the response body.
    ///   - issuer: the configured issuer, which `issuer` must equal byte for byte.
    ///   - allowHTTP: whether endpoints may be http (a provider allowed on the private network).
    /// - Throws: ``DiscoveryError`` naming the member at fault.
    public init(document: [UInt8], issuer: String, allowHTTP: Bool) throws(DiscoveryError) {
        guard document.count <= Self.maximumDocumentLength,
            let parsed = try? JSONValue.parse(document, limits: .init(maximumDepth: 8)), parsed.objectValue != nil
        else { throw DiscoveryError(.malformed, member: "document") }
        guard let stated = parsed["issuer"]?.stringValue, stated.utf8.elementsEqual(issuer.utf8) else {
            throw DiscoveryError(.issuerMismatch, member: "issuer", found: parsed["issuer"]?.stringValue)
        }
        func endpoint(_ member: String, required: Bool) throws(DiscoveryError) -> String? {
            guard let value = parsed[member] else {
                if required { throw DiscoveryError(.badEndpoint, member: member) }
                return nil
            }
            guard let text = value.stringValue, let url = try? FetchURL(parsing: text), url.isHTTPS || allowHTTP,
                !text.contains("#")
            else { throw DiscoveryError(.badEndpoint, member: member) }
            return text
        }
        /// A list member that, when present, must contain one of `needed`.
        func offers(_ member: String, _ needed: Set<String>) throws(DiscoveryError) {
            guard let value = parsed[member] else { return }
            guard let items = value.arrayValue, items.contains(where: { $0.stringValue.map(needed.contains) == true })
            else { throw DiscoveryError(.unsupported, member: member) }
        }
        self.issuer = stated
        authorizationEndpoint = try endpoint("authorization_endpoint", required: true)!
        tokenEndpoint = try endpoint("token_endpoint", required: true)!
        jwksURI = try endpoint("jwks_uri", required: true)!
        userinfoEndpoint = try endpoint("userinfo_endpoint", required: false)
        endSessionEndpoint = try endpoint("end_session_endpoint", required: false)
        try offers("response_types_supported", ["code"])
        try offers("id_token_signing_alg_values_supported", Set(PublishedKey.Algorithm.allCases.map(\.rawValue)))
        try offers("code_challenge_methods_supported", ["S256"])
        switch parsed["token_endpoint_auth_methods_supported"]?.arrayValue?.compactMap(\.stringValue) {
        case nil: clientAuthentication = .basic
        case let methods? where methods.contains("client_secret_basic"): clientAuthentication = .basic
        case let methods? where methods.contains("client_secret_post"): clientAuthentication = .post
        default: throw DiscoveryError(.unsupported, member: "token_endpoint_auth_methods_supported")
        }
        switch parsed["authorization_response_iss_parameter_supported"] {
        case nil: issuerParameterSupported = false
        case .bool(let supported)?: issuerParameterSupported = supported
        default: throw DiscoveryError(.malformed, member: "authorization_response_iss_parameter_supported")
        }
    }

    /// Whether an authorization response's `iss` parameter (RFC 9207 section 2.4) is acceptable: when present, exactly
    /// this issuer; when absent, only from a provider that does not promise it (a mix-up attacker's answer would
    /// leave it out).
    /// - Parameter parameter: the callback's `iss` query parameter, decoded; nil when absent.
    public func acceptsResponseIssuer(_ parameter: String?) -> Bool {
        guard let parameter else { return !issuerParameterSupported }
        return parameter.utf8.elementsEqual(issuer.utf8)
    }
}
