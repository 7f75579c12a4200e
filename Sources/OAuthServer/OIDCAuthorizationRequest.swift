import Directory
import OAuthGrants

/// A `GET /oauth/authorize` request of an OpenID relying party (a confidential client the operator made with
/// redirect URIs) checked against OpenID Connect Core 1.0 section 3.1.2. Pure: the relying party is looked up by
/// the caller.
///
/// Until the client and its redirect URI are known good the error is a 400 page; after that, every error goes back
/// to the redirect URI (section 3.1.2.6): the operator registered it, so this is no open redirector.
struct OIDCAuthorizationRequest: Sendable, Equatable {
    let party: OIDCRelyingParty
    let redirectURI: String
    /// `state`, echoed; optional in OpenID Connect.
    let state: String?
    /// The scopes granted if the owner agrees: `openid` first, then `email` and `profile` when asked, then `mail.read`
    /// and `mail.send` when asked by a relying party the operator let reach mail (others are ignored, as section
    /// 3.1.2.1 says of scopes a provider does not know).
    let scopes: [String]
    let nonce: String?
    /// The PKCE S256 challenge; nil only for a legacy client (``OIDCRelyingParty/legacyNoPKCE``).
    let codeChallenge: String?
    let prompt: OIDCPrompt.Request
    /// The claims asked for by name (`claims`, section 5.5): the owner's email, whether it is proven, and name.
    let claims: OIDCClaimsRequest

    /// The scopes the owner's consent must cover: those granted, and those the claims asked for by name need (`email`
    /// for `email` and `email_verified`, `profile` for `name`), in ``supportedScopes`` order, then the mail scopes
    /// granted (`mail.read`, `mail.send`), which the consent page names.
    var consentScopes: [String] {
        Self.supportedScopes.filter { scopes.contains($0) || claims.scopes.contains($0) }
            + scopes.filter { !Self.supportedScopes.contains($0) }
    }

    /// Why a request was refused.
    enum Failure: Error, Equatable {
        /// Before the redirect URI is known good: a 400 page with these words.
        case page(String)
        /// After: this error at the redirect URI, with `state` when sent.
        case redirect(OAuthError, redirectURI: String, state: String?)
    }

    /// The scopes a relying party may be granted.
    static let supportedScopes = ["openid", "email", "profile"]

    /// The mail permissions `scopes` name (`mail.read`, `mail.send`), empty when none: what a sign-in asked of the
    /// owner's mail, and what a redeemed code's token reaches.
    static func mailPermissions(_ scopes: [String]) -> MailPermissions {
        MailPermissions.scopeNames.reduce(into: MailPermissions()) { found, name in
            if scopes.contains(name.1) { found.insert(name.0) }
        }
    }

    /// Longest `nonce` and `state` kept, bytes.
    static let maxEchoedLength = 512

    /// Checks the query `items` for `party`.
    init(items: [(name: String, value: String)], party: OIDCRelyingParty) throws(Failure) {
        var fields: [String: String] = [:]
        var repeated: Set<String> = []
        for (name, value) in items where fields.updateValue(value, forKey: name) != nil { repeated.insert(name) }
        guard let redirectURI = fields["redirect_uri"], !repeated.contains("redirect_uri"),
            party.redirectURIs.contains(redirectURI)
        else { throw .page("The app asked to send you back to an address it did not register (redirect_uri).") }
        let state = repeated.contains("state") ? nil : fields["state"].flatMap { $0.isEmpty ? nil : $0 }
        func fail(_ code: String, _ text: String) -> Failure {
            .redirect(OAuthError(code, text), redirectURI: redirectURI, state: state)
        }
        if let name = repeated.sorted().first { throw fail("invalid_request", "\(name) is repeated.") }
        guard fields["response_type"] == "code" else {
            throw fail("unsupported_response_type", "response_type must be code.")
        }
        if let mode = fields["response_mode"], mode != "query" {
            throw fail("invalid_request", "response_mode must be query.")
        }
        if fields["request"] != nil { throw fail("request_not_supported", "Request objects are not supported.") }
        if fields["request_uri"] != nil { throw fail("request_uri_not_supported", "request_uri is not supported.") }
        if fields["registration"] != nil {
            throw fail("registration_not_supported", "registration is not supported.")
        }
        let asked = (fields["scope"] ?? "").split(separator: " ").map(String.init)
        guard asked.contains("openid") else { throw fail("invalid_scope", "scope must include openid.") }
        let mail = Self.mailPermissions(asked)
        if !mail.isEmpty, !(party.mailAccess ?? []).isSuperset(of: mail) {
            throw fail("invalid_scope", "This app may not ask for \(mail.scope) (the operator did not allow it).")
        }
        if let state, state.utf8.count > Self.maxEchoedLength { throw fail("invalid_request", "state is too long.") }
        var claims = OIDCClaimsRequest.none
        if let text = fields["claims"] {
            do throws(OIDCClaimsRequest.Failure) {
                claims = try OIDCClaimsRequest(parameter: text)
            } catch {
                switch error {
                case .malformed(let why): throw fail("invalid_request", why)
                }
            }
        }
        let nonce = fields["nonce"].flatMap { $0.isEmpty ? nil : $0 }
        if let nonce, nonce.utf8.count > Self.maxEchoedLength { throw fail("invalid_request", "nonce is too long.") }
        var challenge: String?
        if let sent = fields["code_challenge"] {
            guard fields["code_challenge_method"] == "S256", OAuthPKCE.challengeWellFormed(sent) else {
                throw fail("invalid_request", "code_challenge must be 43 base64url characters with method S256.")
            }
            challenge = sent
        } else if !party.legacyNoPKCE {
            throw fail("invalid_request", "code_challenge is required (PKCE S256).")
        }
        var prompt = OIDCPrompt.Request()
        prompt.prompts = Set((fields["prompt"] ?? "").split(separator: " ").map(String.init))
        guard prompt.prompts.isSubset(of: ["none", "login", "consent", "select_account"]) else {
            throw fail("invalid_request", "prompt may be none, login, consent or select_account.")
        }
        if prompt.prompts.contains("none"), prompt.prompts.count > 1 {
            throw fail("invalid_request", "prompt=none may not be combined with another value.")
        }
        if let text = fields["max_age"] {
            guard let seconds = Int64(text), seconds >= 0 else {
                throw fail("invalid_request", "max_age must be a number of seconds.")
            }
            prompt.maxAge = seconds
        }
        if let text = fields["login_since"] {
            guard let since = Int64(text) else { throw fail("invalid_request", "login_since must be Unix seconds.") }
            prompt.loginSince = since
        }
        if let hint = fields["login_hint"], hint.contains("@"), hint.utf8.count <= 254 { prompt.loginHint = hint }
        self.party = party
        self.redirectURI = redirectURI
        self.state = state
        scopes = Self.supportedScopes.filter(asked.contains) + mail.names
        self.nonce = nonce
        codeChallenge = challenge
        self.prompt = prompt
        self.claims = claims
    }
}
