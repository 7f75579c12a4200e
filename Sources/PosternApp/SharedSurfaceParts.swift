import AgentAuth
import AppPasswords
import Audit
import BrowserPages
import Directory
import OAuthGrants
import OAuthResource
import Owners
import SignInProviders

/// What several surface families share, built once before any of them registers (``Surfaces/register(into:_:)``):
/// the audit trail, the browser pages' one page budget, the sign-in providers' flow and identities, the one grant
/// model, the owners' agent inboxes, the agent inboxes' own directory, and the resource side of OAuth that checks
/// owners' access tokens.
struct SharedSurfaceParts {
    /// The audit trail every surface records to.
    let audit: AuditTrail
    /// The owner pages' settings; the web inbox borrows their session lifetime and backoff.
    let ownerSettings: OwnersConfiguration
    /// The browser pages' one middleware: the owner pages and the web inbox draw from one page budget per client.
    let pages: PageRoutes
    /// Sign-in with identity providers (issue 54), nil without providers.
    let signIn: SignInFlow?
    let signInIdentities: SignInIdentityStore
    /// The one grant model under the authorization server, the resource side and the owner pages; every revocation it
    /// makes drops the grant from this instance's cache.
    let grants: OAuthGrantStore
    let ownedInboxes: AgentOwnedInboxes
    /// Agent bearers are checked against the agent surface's own directory, not the composed one: an inbox on a
    /// custom domain its owner no longer holds must not pass because a Pro user's catch-all now makes the same address
    /// local.
    let agentInboxes: AgentInboxDirectory
    /// The resource side of OAuth: owners' access tokens at JMAP, MCP and /api/v1/agents, minted by the authorization
    /// server whose issuer is the public URL (contract 1.1).
    let resource: OAuthResourceConfiguration
    let verifier: OAuthAccessVerifier
    /// The check of access tokens under ``verifier``, which introspection makes too (issue 86).
    let accessTokens: OAuthTokenVerifier
    let ownerPrincipals: OwnerPrincipals
    /// The delegated tokens JMAP and MCP have seen read on this instance (``DelegatedReadAudit``).
    let delegatedReads = DelegatedReadAudit.FirstUses()
    /// The app passwords the owner pages and the Pro dashboard make and revoke.
    let appPasswords: AppPasswordStore

    /// - Throws: `FetchError` when a sign-in provider's trusted-roots file cannot be read.
    init(_ context: SurfaceContext) throws {
        let (configuration, identity, database, clock) = (
            context.configuration, context.identity, context.database, context.clock
        )
        audit = Surfaces.auditTrail(database: database, clock: clock, logger: context.logger)
        ownerSettings = Surfaces.ownersConfiguration(configuration, identity: identity)
        pages = PageRoutes(
            requestsPerMinute: ownerSettings.requestsPerMinute, instances: ownerSettings.instances,
            tableCapacity: ownerSettings.rateLimitTableCapacity, enabled: ownerSettings.rateLimitsEnabled,
            onUnexpectedError: Surfaces.reporter("owners", context.logger))
        let signIn = try Surfaces.signInFlow(
            configuration, identity: identity, database: database, resolver: context.resolver, clock: clock)
        // Each provider's discovery tried once now, so that a misconfigured one is a warning at start, not a "try
        // later" on the page (issue 68); the server does not wait for it.
        if let signIn { Task { [logger = context.logger] in await ProviderDiscoveryCheck.warn(signIn, logger: logger) } }
        self.signIn = signIn
        signInIdentities = SignInIdentityStore(database: database, clock: clock)
        grants = OAuthGrantStore(database: database, observer: context.grantCache)
        let access = OwnerAccess(context, grants: grants)
        ownedInboxes = access.ownedInboxes
        agentInboxes = access.agentInboxes
        resource = access.resource
        verifier = access.verifier
        accessTokens = access.tokens
        ownerPrincipals = access.principals
        appPasswords = Surfaces.appPasswords(configuration, database: database)
    }

    /// ``verifier`` for the door `door` (`jmap`, `mcp`), writing an agent's first read with a delegated token there.
    func auditingReads(at door: String) -> DelegatedReadAudit {
        DelegatedReadAudit(door: door, verifier: verifier, audit: audit, seen: delegatedReads)
    }
}
