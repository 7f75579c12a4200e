import OAuthResource
import OAuthServer
import Owners
import ServerKit

/// The authorization server, `/oauth/` (owners grant agents access through the owner pages' session), and the
/// resource side's `/api/v1/agents`.
enum OAuthSurface {
    /// Adds the authorization server's routes and `/api/v1/agents`; returns the server for its 404/405 renderer and
    /// the guide.
    /// - Throws: storage or crypto errors from the server's start-up; `FetchError` when
    ///   `POSTERN_OAUTH_CIMD_TRUST_CA_FILE` cannot be read.
    static func register(
        into router: inout ContextRouter, _ context: SurfaceContext, _ shared: SharedSurfaceParts, owners: OwnerService
    ) throws -> OAuthService {
        let (configuration, identity, logger) = (context.configuration, context.identity, context.logger)
        let documents = try Surfaces.clientDocumentFetcher(configuration, resolver: context.resolver)
        let agent = Surfaces.agentConfiguration(configuration, identity: identity)
        let oauth = try OAuthService(
            configuration: Surfaces.oauthConfiguration(configuration, identity: identity), keys: context.keys,
            database: context.database, grants: shared.grants, pool: context.pool, browser: owners.browser,
            inboxes: CappedOwnedInboxes(shared.ownedInboxes, limit: shared.ownerSettings.maxInboxes),
            metadataDocuments: configuration.oauth.clientMetadataDocuments ? documents : nil,
            clock: context.clock, onUnexpectedError: Surfaces.reporter("oauth", logger), audit: shared.audit,
            clientKeyDocuments: configuration.oauth.confidentialClientsServed ? documents : nil,
            capabilityTokens: OAuthCapabilityTokens(
                issuer: identity.issuer, audience: agent.audience, lifetime: agent.capabilityTTL,
                directory: shared.agentInboxes),
            identityIssuers: shared.signIn.map { SignInIdentityIssuers(flow: $0, identities: shared.signInIdentities) },
            openIDOwners: configuration.oauth.openIDProvider ? owners.owners : nil,
            logoutDelivery: configuration.oauth.openIDProvider ? documents : nil, accessTokens: shared.accessTokens)
        oauth.register(into: &router)
        OAuthAgentsService(
            verifier: shared.verifier, inboxes: shared.ownedInboxes, publicURL: identity.baseURL,
            rateLimits: shared.resource.rateLimits, onUnexpectedError: Surfaces.reporter("agents", logger)
        ).register(into: &router)
        return oauth
    }
}
