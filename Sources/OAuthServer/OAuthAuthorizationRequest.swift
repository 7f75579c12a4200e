/// A `GET /oauth/authorize` request checked against contract 1.3 and docs/decisions/0014. Pure: the
/// client is looked up by the caller.
///
/// Every error is a 400 page, never a redirect (RFC 9700 section 4.11.2): anyone may register a client (or publish
/// a metadata document) with any redirect URI, so a redirect before the owner has seen the consent page would make
/// the issuer an open redirector. There are no pre-registered clients whose redirect URIs an operator vouches for;
/// only the owner's answer on the consent page (deny) is redirected.
struct OAuthAuthorizationRequest: Sendable, Equatable {
    /// The client, as the caller looked it up.
    let client: OAuthClient
    var clientID: String { client.clientID }
    let redirectURI: String
    let state: String
    let scopes: [String]
    /// The resource, as written (the tokens' `aud`).
    let resource: String
    let target: OAuthResource
    let codeChallenge: String

    /// Why a request was refused: the text of the 400 page (with the OAuth error code for the app's developer).
    struct Failure: Error, Equatable {
        let text: String

        init(_ text: String) { self.text = text }

        init(_ error: OAuthError) { text = "\(error.description) (\(error.code))" }
    }

    static let parameterNames = [
        "response_type", "client_id", "redirect_uri", "scope", "resource", "state", "code_challenge",
        "code_challenge_method",
    ]

    /// The client id the query names (to look the client up), nil when absent or repeated.
    static func clientID(in items: [(name: String, value: String)]) -> String? {
        let values = items.filter { $0.name == "client_id" }
        return values.count == 1 && !values[0].value.isEmpty ? values[0].value : nil
    }

    /// Checks the query `items` of a request for `client` (nil when unknown).
    init(items: [(name: String, value: String)], client: OAuthClient?, configuration: OAuthConfiguration) throws(Failure) {
        var fields: [String: String] = [:]
        var repeated: Set<String> = []
        for (name, value) in items where Self.parameterNames.contains(name) {
            if fields.updateValue(value, forKey: name) != nil { repeated.insert(name) }
        }
        guard let client, !repeated.contains("client_id") else {
            throw Failure("The app that sent you here is not registered with this server (unknown client_id).")
        }
        guard let redirectURI = fields["redirect_uri"], !repeated.contains("redirect_uri"),
            OAuthRedirectURI.matches(redirectURI, registered: client.redirectURIs)
        else {
            throw Failure("The app asked to send you back to an address it did not register (redirect_uri).")
        }
        let state = fields["state"].flatMap { $0.isEmpty || repeated.contains("state") ? nil : $0 }
        func fail(_ error: OAuthError) -> Failure { Failure(error) }
        if let name = repeated.sorted().first { throw fail(.invalidRequest("\(name) is repeated.")) }
        guard fields["response_type"] == "code" else {
            throw fail(OAuthError("unsupported_response_type", "response_type must be code."))
        }
        guard let state else { throw fail(.invalidRequest("state is required.")) }
        guard fields["code_challenge_method"] == "S256" else {
            throw fail(.invalidRequest("code_challenge_method must be S256 (PKCE is required)."))
        }
        guard let challenge = fields["code_challenge"], OAuthPKCE.challengeWellFormed(challenge) else {
            throw fail(.invalidRequest("code_challenge is required: 43 base64url characters (S256)."))
        }
        guard let resource = fields["resource"], !resource.isEmpty else {
            throw fail(.invalidRequest("resource is required."))
        }
        guard let target = OAuthResource(resource, configuration: configuration) else {
            throw fail(.invalidRequest("resource must be exactly one of this server's resources."))
        }
        guard let scope = fields["scope"], let scopes = OAuthScope.parse(scope) else {
            throw fail(.invalidScope("scope must name mail.read, mail.send or both."))
        }
        if let allowed = client.scopes, !scopes.allSatisfy(allowed.contains) {
            throw fail(.invalidScope("scope is wider than the client registered for."))
        }
        self.client = client
        self.redirectURI = redirectURI
        self.state = state
        self.scopes = scopes
        self.resource = resource
        self.target = target
        codeChallenge = challenge
    }
}
