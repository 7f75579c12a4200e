import JMAP
import MailSignIn
import MailboxWebInbox
import ServerKit
import SignInProviders
import WebInbox

/// The web inbox, `/inbox`: owners read their inboxes through their owner session; Mail.td accounts, Pro users and
/// one-time links through its own sessions, with the owners' backoff and session lifetime. Owners send as their
/// inboxes through JMAP, as their agents do. Also the Pro users' sign-in methods and dashboard, and the one redirect
/// URI of the sign-in providers.
enum WebInboxSurface {
    /// Adds the web inbox's, the Pro sign-in methods', the providers' callback and the Pro dashboard's routes.
    /// - Throws: storage or crypto errors from the web inbox's start-up.
    static func register(
        into router: inout ContextRouter, _ context: SurfaceContext, _ shared: SharedSurfaceParts,
        owners: OwnerSurface, mailbox: MailboxSurface, credentials: MailSignIn, jmap: JMAPService
    ) throws {
        let (signIn, audit, metrics) = (shared.signIn, shared.audit, context.metrics)
        var settings = context.configuration.webInbox
        settings.publicURL = context.identity.baseURL
        settings.sessionLifetime = shared.ownerSettings.sessionLifetime
        settings.backoff = shared.ownerSettings.backoff
        settings.freshProof = shared.ownerSettings.freshProof
        let accounts = MailboxWebInboxSignIn(
            accounts: mailbox.service.accounts, credentials: credentials, sandbox: mailbox.sandbox,
            directory: context.mail.directory)
        // Pro users' passkeys run on the owners' ceremonies: one relying party, store and challenge table.
        let passkeys = owners.service.passkeys.map {
            WebInboxPasskeys(ceremonies: $0, audit: audit, onCeremony: metrics.passkeyCeremony)
        }
        let providers = signIn.map {
            WebInboxProviders(flow: $0, identities: shared.signInIdentities, accounts: accounts, audit: audit)
        }
        let inbox = try WebInboxService(
            configuration: settings, ownerBrowser: owners.service.browser, pages: shared.pages,
            ownedInboxes: shared.ownedInboxes, signIns: accounts, mail: context.mail.store,
            database: context.database, clock: context.clock,
            sender: JMAPWebInboxSender(jmap: jmap, principals: shared.ownerPrincipals), captures: accounts,
            linksDashboard: true, onLiveStream: metrics.webInboxLiveStream,
            signInOffer: WebInboxSignInOffer(passkeys: passkeys, providers: providers),
            secondFactors: mailbox.proSecondFactors, audit: audit)
        inbox.register(into: &router)
        ProTwoStepPages(inbox: inbox).register(into: &router)
        // The one sign-in methods controller, mounted for Pro users (the owners' mount is OwnerProviderPages and
        // OwnerService's passkeys).
        let proSignIn = ProSignInMethods(inbox: inbox, passkeys: passkeys, providers: providers)
        proSignIn.register(into: &router)
        if let signIn, let ownerProviderPages = owners.providerPages {
            // The one redirect URI of every surface: each login goes back to the surface that began it.
            let browser = owners.service.browser
            router.add(
                .GET, SignInRedirect.path,
                shared.pages.limited { request, context in
                    try await signIn.answer(
                        request, surfaces: [.owners: ownerProviderPages, .pro: proSignIn], fallback: .owners,
                        client: context.clientAddress?.description,
                        clear: browser.clearCookie(SignInFlow.browserCookie))
                })
        }
        ProDashboardController(
            inbox: inbox, surface: mailbox.service, webhooks: mailbox.webhooks, sandboxes: mailbox.sandbox,
            signInMethods: proSignIn, appPasswords: shared.appPasswords
        ).register(into: &router)
    }
}
