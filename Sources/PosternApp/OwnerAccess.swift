import AgentAuth
import Directory
import OAuthGrants
import OAuthServer
import OAuthResource

/// The resource side of OAuth as every door checks an owner's access token: the one verifier (issuer, audience,
/// live grant) and the owners' inboxes as principals. Built once by each composition root that serves owners: the
/// HTTP surfaces (``SharedSurfaceParts``) and IMAP (`PosternRuntime.imapServices`).
struct OwnerAccess {
    /// Who holds which agent inbox.
    let ownedInboxes: AgentOwnedInboxes
    /// The agent surface's own directory of inboxes (an inbox on a custom domain its owner no longer holds does not
    /// pass because a Pro user's catch-all makes the same address local).
    let agentInboxes: AgentInboxDirectory
    /// The resource server's settings: the issuer is the public URL (contract 1.1).
    let resource: OAuthResourceConfiguration
    /// The signature and grant check of access tokens, shared by ``verifier`` and introspection.
    let tokens: OAuthTokenVerifier
    let verifier: OAuthAccessVerifier
    let principals: OwnerPrincipals

    init(_ context: SurfaceContext, grants: OAuthGrantStore) {
        let (configuration, identity, database, clock) = (
            context.configuration, context.identity, context.database, context.clock
        )
        ownedInboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: database), domain: configuration.agent.inboxDomain, clock: clock)
        agentInboxes = AgentInboxDirectory(
            accounts: AgentAccountStore(database: database), claims: context.mail.domains,
            domain: configuration.agent.inboxDomain, quota: configuration.agent.inboxQuota)
        // Live grants are cached only on PostgreSQL, where every revocation reaches the cache through `postern_grants`
        // (PosternRuntime).
        var resource = OAuthResourceConfiguration(issuer: identity.baseURL, baseURL: identity.baseURL)
        resource.cacheGrants = database.dialect == .postgres
        self.resource = configuration.rateLimits.applied(to: resource)
        // One check of access tokens for the resources and introspection: verified signatures kept, and live grants
        // kept where every revocation reaches the cache.
        tokens = OAuthTokenVerifier(
            keys: context.keys, issuer: resource.issuer, lifetime: OAuthResourceConfiguration.accessTokenLifetime,
            verifiedTokens: configuration.oauth.verifiedTokenCache, grants: grants,
            cache: resource.cacheGrants ? context.grantCache : nil)
        verifier = OAuthAccessVerifier(configuration: self.resource, tokens: tokens, clock: clock)
        principals = OwnerPrincipals(inboxes: ownedInboxes, directory: agentInboxes)
    }
}
