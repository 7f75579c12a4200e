import Directory

/// JMAP's bearer when it may be an owner's OAuth access token (`api-docs/oauth-mcp-contract.md` 1.10): a token
/// whose header says `at+jwt` is verified for `<public URL>/jmap` or an inbox-bound `urn:atomicmail:agent:{id}`
/// audience and opens the inbox `X-Atomic-Account-Id` names, when the owner holds it, with the grant's scopes;
/// any other bearer goes to `fallback` (the capability token) unchanged.
public struct OAuthJMAPAuthenticator: PrincipalAuthenticator {
    let bearers: BearerAuthenticator
    let principals: OwnerPrincipals

    /// The header that names the inbox on the OAuth path.
    public static let accountHeader = "X-Atomic-Account-Id"

    /// - Parameters:
    ///   - verifier: the access-token verifier.
    ///   - principals: the owners' inboxes as principals.
    ///   - fallback: who every other bearer is (the capability token's authenticator).
    public init(
        verifier: any AccessGrantAuthenticator, principals: OwnerPrincipals, fallback: any PrincipalAuthenticator
    ) {
        self.bearers = BearerAuthenticator(accessTokens: verifier, principals: fallback)
        self.principals = principals
    }

    /// The principal of the inbox `X-Atomic-Account-Id` names for an access token; `fallback`'s answer otherwise.
    /// - Throws: ``AuthenticationRefusal``: `.invalidToken` (401), `.accountHeader` when the header is missing or not
    ///   a UUID (400), `.accessDenied` when the owner does not hold that inbox or the token is bound to another
    ///   (403); storage errors.
    public func principal(for credentials: Credentials) async throws -> Principal? {
        let grant: AccessGrant
        switch try await bearers.authenticate(credentials, resources: [.jmap, .anyAgent]) {
        case nil: return nil
        case .principal(let principal)?: return principal
        case .owner(let owner)?: grant = owner
        }
        guard let account = credentials.header(Self.accountHeader), AccountID.isUUID(account.lowercased()) else {
            throw AuthenticationRefusal(
                .accountHeader, "Send the inbox's accountId (a UUID, from GET /api/v1/agents) in X-Atomic-Account-Id.")
        }
        return try await principals.principal(grant, accountID: account)
    }
}
