import OAuthGrants
import Owners
import Passkeys
import SecondFactors
import ServerKit
import SigningKeys

/// The owner pages, `/owner`: the owners' account, their agent inboxes and grants, their custom domains, and their
/// side of the sign-in providers' routes.
struct OwnerSurface {
    let service: OwnerService
    /// The owners' mount of the provider routes, nil without sign-in providers.
    let providerPages: OwnerProviderPages?

    /// Adds the owner pages' routes.
    /// - Throws: storage or crypto errors from the owners' start-up.
    static func register(into router: inout ContextRouter, _ context: SurfaceContext, _ shared: SharedSurfaceParts)
        throws -> OwnerSurface
    {
        let (configuration, database, clock, signIn) = (
            context.configuration, context.database, context.clock, shared.signIn
        )
        // Sign-in with identity providers (issue 54): the buttons, the flow's routes and "Sign-in methods" on /owner.
        let owners = try OwnerService(
            configuration: shared.ownerSettings, database: database, pool: context.pool, resolver: context.resolver,
            customDomains: context.mail.domains, clock: clock, audit: shared.audit, pages: shared.pages,
            passkeyStore: PasskeyStore(database: database),
            relyingParty: configuration.webAuthn.relyingParty(publicURL: context.identity.baseURL),
            signInButtons: signIn?.providers(for: .owners) ?? [], identities: shared.signInIdentities,
            providerLogout: { [signIn] provider in await signIn?.endSessionURL(provider: provider) },
            secondFactors: SecondFactorStore(
                .owners, database: database, sealing: context.sealer.map { SecretSealing($0, name: "an owner's TOTP secret") },
                clock: clock))
        owners.register(into: &router)
        let providerPages = signIn.map {
            OwnerProviderPages(service: owners, flow: $0, identities: shared.signInIdentities)
        }
        providerPages?.register(into: &router)
        OwnerInboxPages(
            service: owners, inboxes: shared.ownedInboxes, grants: OwnerGrants(
                store: shared.grants, clock: clock,
                openID: configuration.oauth.openIDProvider
                    ? (shared.grants.openIDSignIns, OIDCRelyingParties(database: database)) : nil),
            agentDomain: configuration.agent.inboxDomain
        ).register(into: &router)
        OwnerDomainPages(service: owners, inboxes: shared.ownedInboxes).register(into: &router)
        OwnerTwoStepPages(service: owners).register(into: &router)
        OwnerClientPages(
            service: owners, inboxes: shared.ownedInboxes, clients: OAuthConfidentialClients(database: database),
            enabled: configuration.oauth.clientCredentials, clock: clock
        ).register(into: &router)
        OwnerAppPasswordPages(
            service: owners, inboxes: shared.ownedInboxes, store: shared.appPasswords,
            appleMail: MailClientSetupSurface.appleMailProfile(context), clock: clock
        ).register(into: &router)
        OwnerActorPages(
            service: owners, grants: shared.grants, clients: OAuthConfidentialClients(database: database),
            enabled: configuration.oauth.tokenExchange || configuration.oauth.jwtBearer, clock: clock
        ).register(into: &router)
        return OwnerSurface(service: owners, providerPages: providerPages)
    }
}
