import AuthCrypto
import HTTP1
import JSON
import Testing

@testable import SignInProviders

/// The authorization request, the provider's redirect back, and the token request and answer (RFC 6749 sections
/// 4.1 and 5, PKCE, the OpenID Connect nonce), all pure.
@Suite("Authorization requests, callbacks and token exchanges")
struct AuthorizationExchangeTests {
    static let corp = SignInProvider(
        name: "corp", kind: .oidc(issuer: "https://sso.example"), clientID: "postern:client",
        clientSecret: .init("s&cret"), displayName: "Corp", scopes: ["openid", "email", "profile"])
    static let gitHub = SignInProvider(
        name: "github", kind: .github(webURL: "https://github.com", apiURL: "https://api.github.com"),
        clientID: "Iv1.abc", clientSecret: .init("gh"), displayName: "GitHub", scopes: ["read:user", "user:email"])
    static let transaction = SignInTransaction(
        provider: "corp", surface: .owners, account: nil, nonce: "nonce-value",
        codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", returnTo: "/owner")
    static let redirect = SignInRedirect.uri(publicURL: "https://postern.example/")

    static func query(_ url: String) -> [String: String] {
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        return Dictionary(HTTPRequest.items(ofQuery: query).map { ($0.name, $0.value) }) { first, _ in first }
    }

    @Test("one redirect URI: the public URL's /oidc/callback")
    func redirectURI() {
        #expect(Self.redirect == "https://postern.example/oidc/callback")
        #expect(SignInRedirect.uri(publicURL: "http://127.0.0.1:8080") == "http://127.0.0.1:8080/oidc/callback")
    }

    @Test("the authorization URL asks for a code with PKCE S256, the state and, for OpenID Connect, the nonce")
    func authorizationURL() {
        let endpoints = ProviderEndpoints(
            authorization: "https://sso.example/authorize?tenant=a b", token: "https://sso.example/token",
            clientAuthentication: .basic)
        let url = Self.transaction.authorizationURL(
            provider: Self.corp, endpoints: endpoints, state: "the-state", redirectURI: Self.redirect)
        #expect(url.hasPrefix("https://sso.example/authorize?tenant=a b&response_type=code&"))
        let query = Self.query(url)
        #expect(query["client_id"] == "postern:client" && query["redirect_uri"] == Self.redirect)
        #expect(query["scope"] == "openid email profile" && query["state"] == "the-state")
        #expect(query["code_challenge"] == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(query["code_challenge_method"] == "S256" && query["nonce"] == "nonce-value")
        let gitHub = Self.transaction.authorizationURL(
            provider: Self.gitHub, endpoints: ProviderEndpoints.gitHub(webURL: "https://github.com"), state: "s",
            redirectURI: Self.redirect)
        #expect(gitHub.hasPrefix("https://github.com/login/oauth/authorize?response_type=code&"))
        #expect(Self.query(gitHub)["nonce"] == nil && Self.query(gitHub)["code_challenge_method"] == "S256")
    }

    @Test("the token request sends the code, the redirect URI and the verifier, the secret by Basic or in the body")
    func tokenRequest() {
        let basic = ProviderEndpoints(authorization: "a", token: "t", clientAuthentication: .basic)
        let (headers, body) = Self.transaction.tokenRequest(
            code: "the code", provider: Self.corp, endpoints: basic, redirectURI: Self.redirect)
        let form = Dictionary(
            HTTPRequest.items(ofQuery: String(decoding: body, as: UTF8.self)).map { ($0.name, $0.value) }
        ) { first, _ in first }
        #expect(form["grant_type"] == "authorization_code" && form["code"] == "the code")
        #expect(form["redirect_uri"] == Self.redirect && form["code_verifier"] == Self.transaction.codeVerifier)
        #expect(form["client_secret"] == nil && form["client_id"] == nil)
        let authorization = headers.first { $0.0 == "Authorization" }?.1
        #expect(authorization == "Basic " + Base64.encode(Array("postern%3Aclient:s%26cret".utf8)))
        #expect(headers.contains { $0 == ("Content-Type", "application/x-www-form-urlencoded") })

        let (postHeaders, postBody) = Self.transaction.tokenRequest(
            code: "c", provider: Self.gitHub, endpoints: ProviderEndpoints.gitHub(webURL: "https://github.com"),
            redirectURI: Self.redirect)
        let posted = HTTPRequest.items(ofQuery: String(decoding: postBody, as: UTF8.self))
        #expect(posted.contains { $0 == ("client_id", "Iv1.abc") } && posted.contains { $0 == ("client_secret", "gh") })
        #expect(!postHeaders.contains { $0.0 == "Authorization" })
        #expect(
            ProviderEndpoints.gitHub(webURL: "https://ghe.example").token
                == "https://ghe.example/login/oauth/access_token")
    }

    @Test(
        "the callback gives a code and its state, or the provider's refusal; anything else is nothing",
        arguments: [
            ("code=abc&state=xyz", AuthorizationCallback.code(code: "abc", state: "xyz", issuer: nil)),
            (
                "code=abc&state=xyz&iss=https%3A%2F%2Fsso.example",
                .code(code: "abc", state: "xyz", issuer: "https://sso.example")
            ),
            ("error=access_denied&state=xyz", .refused(error: "access_denied", state: "xyz")),
            ("error=access_denied", .refused(error: "access_denied", state: nil)),
            ("code=abc", nil), ("state=xyz", nil), ("code=&state=xyz", nil), ("code=a&state=x&state=y", nil),
            ("code=a&code=b&state=x", nil), ("", nil),
        ] as [(String, AuthorizationCallback?)])
    func callback(query: String, expected: AuthorizationCallback?) {
        #expect(AuthorizationCallback(query: HTTPRequest.items(ofQuery: query)) == expected)
    }

    @Test("a token answer gives the access token and id_token; an error or a malformed answer is refused")
    func tokenResponse() throws {
        let answer = try TokenResponse(
            body: Array(#"{"access_token":"at","token_type":"Bearer","id_token":"a.b.c","expires_in":3600}"#.utf8))
        #expect(answer.accessToken == "at" && answer.idToken == "a.b.c")
        #expect(try TokenResponse(body: Array(#"{"access_token":"gho","token_type":"bearer"}"#.utf8)).idToken == nil)
        #expect(throws: TokenResponse.Refusal.provider("invalid_grant")) {
            try TokenResponse(body: Array(#"{"error":"invalid_grant","error_description":"PKCE"}"#.utf8))
        }
        for body in [
            #"{"access_token":"at","token_type":"mac"}"#, #"{"token_type":"Bearer"}"#,
            #"{"access_token":"at","token_type":"Bearer","id_token":7}"#, "[]", "not json",
        ] {
            #expect(throws: TokenResponse.Refusal.malformed) { try TokenResponse(body: Array(body.utf8)) }
        }
    }

    @Test("the token endpoint's client authentication comes from the discovery document")
    func clientAuthentication() throws {
        func read(_ methods: JSONValue?) throws -> ProviderMetadata {
            var members: [(String, JSONValue)] = [
                ("issuer", "https://sso.example"), ("authorization_endpoint", "https://sso.example/a"),
                ("token_endpoint", "https://sso.example/t"), ("jwks_uri", "https://sso.example/k"),
            ]
            if let methods { members.append(("token_endpoint_auth_methods_supported", methods)) }
            return try ProviderMetadata(
                document: JSONValue.object(members).serialize(), issuer: "https://sso.example", allowHTTP: false)
        }
        #expect(try read(nil).clientAuthentication == .basic)
        #expect(try read(["client_secret_post", "client_secret_basic"]).clientAuthentication == .basic)
        #expect(try read(["client_secret_post"]).clientAuthentication == .post)
        #expect(ProviderEndpoints(try read(["client_secret_post"])).token == "https://sso.example/t")
        let error = #expect(throws: DiscoveryError.self) { try read(["private_key_jwt"]) }
        #expect(error == DiscoveryError(.unsupported, member: "token_endpoint_auth_methods_supported"))
    }
}
