import JWT

/// Who a bearer is, for every resource server (JMAP, MCP, `/api/v1/agents`): the one chain that tells an owner's
/// OAuth access token from an inbox's own credential and asks the authenticator of that kind.
///
/// The one rule: a bearer whose JOSE header declares `typ: at+jwt` (``JWTPurpose/oauthAccess``) is an access token,
/// verified by ``AccessGrantAuthenticator``; any other bearer is the route's inbox credential (a capability token at
/// JMAP, an API key at MCP), asked of its ``PrincipalAuthenticator``. A route that takes access tokens only (no
/// principal authenticator) verifies every bearer as one, so that anything else is refused as an invalid token.
public struct BearerAuthenticator: Sendable {
    /// What a bearer proved.
    public enum Identity: Sendable, Equatable {
        /// An inbox's own credential: the principal it opens.
        case principal(Principal)
        /// An owner's access token: the live grant it opens.
        case owner(AccessGrant)
    }

    let accessTokens: (any AccessGrantAuthenticator)?
    let principals: (any PrincipalAuthenticator)?

    /// - Parameters:
    ///   - accessTokens: the access-token verifier; nil where OAuth is not served (every bearer is then the
    ///     route's inbox credential).
    ///   - principals: who an inbox credential acts as; nil for a route of owners' tokens only.
    /// - Precondition: at least one of them is given.
    public init(accessTokens: (any AccessGrantAuthenticator)?, principals: (any PrincipalAuthenticator)?) {
        precondition(accessTokens != nil || principals != nil, "a bearer chain with no authenticator")
        self.accessTokens = accessTokens
        self.principals = principals
    }

    /// Whether `token` is taken for an owner's access token: its header declares `typ: at+jwt`.
    public static func isAccessToken(_ token: String) -> Bool {
        JWTPurpose.oauthAccess.isDeclared(by: token)
    }

    /// What `credentials` prove at a route serving `resources`; nil when an inbox credential proves nothing (the
    /// route answers 401).
    /// - Throws: ``AuthenticationRefusal`` `.invalidToken` for an access token that does not verify for `resources`
    ///   or whose grant is not live; storage errors.
    public func authenticate(_ credentials: Credentials, resources: Set<AccessGrant.Resource>) async throws
        -> Identity?
    {
        if let accessTokens, principals == nil || Self.isAccessToken(credentials.bearerToken) {
            return .owner(
                try await accessTokens.grant(
                    for: credentials.bearerToken, resources: resources, client: credentials.client))
        }
        guard let principals else { return nil }
        return try await principals.principal(for: credentials).map(Identity.principal)
    }
}
