import AuthCrypto
import HTTP1
import JSON

/// The one redirect URI of every provider and surface (issue 54 item 2), registered at each provider.
public enum SignInRedirect {
    /// The callback's path.
    public static let path = "/oidc/callback"

    /// `<public URL>/oidc/callback`, the public URL without its trailing slash.
    public static func uri(publicURL: String) -> String {
        base(publicURL) + path
    }

    /// `<public URL>/`: where a provider's logout (`_LOGOUT`) sends the browser back to, its
    /// `post_logout_redirect_uri`.
    public static func postLogoutURI(publicURL: String) -> String {
        base(publicURL) + "/"
    }

    /// The public URL without its trailing slashes.
    private static func base(_ publicURL: String) -> Substring {
        var base = Substring(publicURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base
    }
}

/// Where a provider's endpoints are: from its discovery document, or GitHub's fixed paths under its web URL.
public struct ProviderEndpoints: Sendable, Equatable {
    /// The authorization endpoint the browser is sent to.
    public var authorization: String
    /// The token endpoint the code is exchanged at.
    public var token: String
    /// How the client authenticates at the token endpoint.
    public var clientAuthentication: ClientAuthentication

    /// RFC 6749 section 2.3.1's two ways of sending the client secret.
    public enum ClientAuthentication: String, Sendable, Equatable {
        /// `Authorization: Basic` of the form-encoded id and secret (`client_secret_basic`, the default).
        case basic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form body (`client_secret_post`; GitHub's way).
        case post = "client_secret_post"
    }

    /// Creates endpoints.
    public init(authorization: String, token: String, clientAuthentication: ClientAuthentication) {
        self.authorization = authorization
        self.token = token
        self.clientAuthentication = clientAuthentication
    }

    /// An OpenID Connect provider's, from its discovery document.
    public init(_ metadata: ProviderMetadata) {
        self.init(
            authorization: metadata.authorizationEndpoint, token: metadata.tokenEndpoint,
            clientAuthentication: metadata.clientAuthentication)
    }

    /// GitHub's (or GitHub Enterprise's) OAuth endpoints under `webURL`.
    public static func gitHub(webURL: String) -> ProviderEndpoints {
        ProviderEndpoints(
            authorization: webURL + "/login/oauth/authorize", token: webURL + "/login/oauth/access_token",
            clientAuthentication: .post)
    }
}

extension SignInTransaction {
    /// The authorization request (RFC 6749 section 4.1.1) this transaction sends the browser with: the code flow,
    /// PKCE's S256 challenge (RFC 7636 section 4.3) always, the state, and the nonce for OpenID Connect.
    /// - Parameters:
    ///   - provider: the provider, for its client id, scopes and kind.
    ///   - endpoints: its endpoints.
    ///   - state: the transaction's state.
    ///   - redirectURI: ``SignInRedirect/uri(publicURL:)``.
    public func authorizationURL(
        provider: SignInProvider, endpoints: ProviderEndpoints, state: String, redirectURI: String
    ) -> String {
        var parameters = [
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", redirectURI),
            ("scope", provider.scopes.joined(separator: " ")), ("state", state), ("code_challenge", codeChallenge),
            ("code_challenge_method", "S256"),
        ]
        if case .oidc = provider.kind { parameters.append(("nonce", nonce)) }
        return PercentEncoding.appending(parameters, to: endpoints.authorization)
    }

    /// The token request (RFC 6749 section 4.1.3) exchanging `code`, with this transaction's PKCE verifier.
    /// - Returns: the request's extra headers (`Content-Type`, `Accept`, and `Authorization` for basic client
    ///   authentication) and its form body.
    public func tokenRequest(
        code: String, provider: SignInProvider, endpoints: ProviderEndpoints, redirectURI: String
    ) -> (headers: [(String, String)], body: [UInt8]) {
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        var parameters = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", codeVerifier),
        ]
        switch endpoints.clientAuthentication {
        case .basic:
            // RFC 6749 section 2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
            let credentials =
                PercentEncoding.encode(provider.clientID) + ":"
                + PercentEncoding.encode(provider.clientSecret.value)
            headers.append(("Authorization", "Basic " + Base64.encode(Array(credentials.utf8))))
        case .post:
            parameters += [("client_id", provider.clientID), ("client_secret", provider.clientSecret.value)]
        }
        return (headers, Array(PercentEncoding.query(parameters).utf8))
    }
}

/// What a provider's redirect back to ``SignInRedirect/path`` carries (RFC 6749 section 4.1.2), read from its query.
public enum AuthorizationCallback: Sendable, Equatable {
    /// The person agreed: the code to exchange, the state of the transaction, and RFC 9207's `iss` when sent.
    case code(code: String, state: String, issuer: String?)
    /// The provider refused (section 4.1.2.1): its `error` code, and the state when sent.
    case refused(error: String, state: String?)

    /// Reads the callback's query items.
    /// - Returns: nil for a callback that is neither (no state, no code, or a parameter given twice, which section
    ///   3.1 forbids).
    public init?(query items: [(name: String, value: String)]) {
        var fields: [String: String] = [:]
        for (name, value) in items where ["code", "state", "iss", "error"].contains(name) {
            guard fields.updateValue(value, forKey: name) == nil else { return nil }
        }
        if let error = fields["error"] {
            self = .refused(error: error, state: fields["state"])
            return
        }
        guard let code = fields["code"], !code.isEmpty, let state = fields["state"], !state.isEmpty else { return nil }
        self = .code(code: code, state: state, issuer: fields["iss"])
    }
}

/// A token endpoint's answer (RFC 6749 section 5), the members sign-in uses.
public struct TokenResponse: Sendable, Equatable {
    /// The largest answer read, in bytes.
    public static let maximumLength = 64 * 1024

    /// `access_token`: for userinfo, or GitHub's API.
    public let accessToken: String
    /// `id_token`, which an OpenID Connect provider must send.
    public let idToken: String?

    /// Why an answer was refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// The provider answered an error (section 5.2): its `error` code (`invalid_grant` for a refused code or
        /// code_verifier).
        case provider(String)
        /// Not a JSON object with a string `access_token` and a `token_type` of Bearer, or too long.
        case malformed
    }

    /// Reads `body`, the token endpoint's answer (whatever its status: section 5.2's errors come with 400).
    /// - Throws: ``Refusal``.
    public init(body: [UInt8]) throws(Refusal) {
        guard body.count <= Self.maximumLength, let parsed = try? JSONValue.parse(body, limits: .init(maximumDepth: 8)),
            parsed.objectValue != nil
        else { throw .malformed }
        if let error = parsed["error"] { throw .provider(error.stringValue ?? "unknown") }
        guard let accessToken = parsed["access_token"]?.stringValue, !accessToken.isEmpty,
            parsed["token_type"]?.stringValue?.lowercased() == "bearer"
        else { throw .malformed }
        if let idToken = parsed["id_token"] {
            guard let text = idToken.stringValue else { throw .malformed }
            self.idToken = text
        } else {
            self.idToken = nil
        }
        self.accessToken = accessToken
    }
}
