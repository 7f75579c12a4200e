import Audit
import HTTP1
import Owners
import ServerKit
import SignInMethods
import SignInProviders

/// Pro users' sign-in methods (issues 54 and 56), the Pro mount of ``SignInMethodsController`` (the one
/// implementation, the owners' too) over ``ProSignInFamily``; the web inbox itself keeps only what its sign-in page
/// offers (``WebInboxSignInOffer``):
/// - passkeys: `POST /inbox/sign-in/passkey` (and `/options`) signs the passkey's Pro user in as their password does;
///   signed in, `POST /inbox/passkeys/options`, `POST /inbox/passkeys` (`credential`, `name`), `.../{id}/rename`
///   (`name`) and `.../{id}/remove`; `POST /inbox/password/remove` (`password`) for a Pro user left another way in;
///   `GET /inbox/assets/passkeys.js`.
/// - providers: `POST /inbox/sign-in/provider` (`provider`), the `pro` surface's side of `GET /oidc/callback`,
///   `GET|POST /inbox/sign-in/provider-link` (the password question), and, signed in,
///   `POST /inbox/sign-in-methods/link` (`provider`) and `/unlink` (`issuer`, `subject`), never the last way in.
///
/// Adding a passkey and linking a provider need a recent sign-in (``SignInFamily/freshProof``). Each answer,
/// notice and audit record is the controller's; docs/passkeys.md and docs/sign-in-providers.md.
public struct ProSignInMethods: SignInSurfacePages {
    /// The controller mounted for Pro users.
    let controller: SignInMethodsController<ProSignInFamily>
    let providers: WebInboxProviders?
    let inbox: WebInboxService

    /// - Parameters:
    ///   - inbox: the web inbox whose sessions, forms and dashboard Pro users sign in to.
    ///   - passkeys: Pro users' passkey ceremonies, audit trail and counter; nil offers none.
    ///   - providers: Pro users' identity providers; nil offers none.
    public init(inbox: WebInboxService, passkeys: WebInboxPasskeys?, providers: WebInboxProviders?) {
        self.inbox = inbox
        self.providers = providers
        var onCeremony: @Sendable (String, String) -> Void = { _, _ in }
        if let passkeys { onCeremony = passkeys.onCeremony }
        let audit: AuditTrail = passkeys?.audit ?? providers?.audit ?? .disabled
        controller = SignInMethodsController<ProSignInFamily>(
            family: ProSignInFamily(inbox: inbox, accounts: providers?.accounts),
            passkeyStore: passkeys?.ceremonies.store, ceremonies: passkeys?.ceremonies, flow: providers?.flow,
            identities: providers?.identities, audit: audit, onCeremony: onCeremony)
    }

    /// Adds the passkey and provider routes this mount has parts for.
    public func register(into router: inout ContextRouter) {
        controller.registerPasskeys(into: &router, bodyLimit: inbox.configuration.bodyLimit)
        controller.registerProviders(into: &router, bodyLimit: inbox.configuration.bodyLimit)
    }

    /// Whether Pro users are offered passkeys: a page showing ``section(_:)`` loads their script.
    public var offersPasskeys: Bool { controller.ceremonies != nil }

    /// "Sign-in methods" of the Pro dashboard for the signed-in user of `call`: whether they have a password, their
    /// passkeys and the form that adds one, their linked providers with link and unlink forms; empty when the server
    /// offers neither passkeys nor providers. A page that shows it allows `script-src 'self'` (``offersPasskeys``).
    public func section(_ call: WebInboxProUserCall) async throws -> HTML {
        guard offersPasskeys || providers != nil else { return .empty }
        let ways = try await controller.ways(of: call.proUserID)
        let paths = ProSignInFamily.paths
        let providerPart = SignInProviderPart(
            providers: providers?.buttons ?? [], identities: ways.identities, csrfToken: call.csrfToken,
            targets: .init(linkAction: paths.linkStart ?? "", linkFields: [], unlinkAction: paths.unlink),
            time: WebInboxPage.time
        ).render()
        return WebInboxPasskeyParts.signInMethods(
            hasPassword: ways.hasPassword, removable: offersPasskeys && ways.keepsAWayIn(without: .password),
            passkeys: try await controller.passkeys(of: call.proUserID), providers: providerPart,
            csrfToken: call.csrfToken)
    }

    public func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
    {
        await controller.signInRefused(refusal, request, client: client, clear: clear)
    }

    public func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse
    {
        try await controller.signInCompleted(completed, request, client: client, clear: clear)
    }
}
