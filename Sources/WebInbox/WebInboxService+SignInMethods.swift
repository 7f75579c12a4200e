import Audit
import HTTP1
import Owners
import ServerKit
import SignInMethods
import SignInProviders

/// Pro users' sign-in methods in the web inbox (issues 54 and 56), mounted from ``SignInMethodsController`` (the one
/// implementation, the owners' too) over ``ProSignInFamily``:
/// - passkeys: `POST /inbox/sign-in/passkey` (and `/options`), signed the passkey's Pro user in as their password does;
///   signed in, `POST /inbox/passkeys/options`, `POST /inbox/passkeys` (`credential`, `name`),
///   `.../{id}/rename` (`name`) and `.../{id}/remove`; `POST /inbox/password/remove` (`password`) for a Pro user left
///   another way in; `GET /inbox/assets/passkeys.js`.
/// - providers: `POST /inbox/sign-in/provider` (`provider`), the `pro` surface's side of `GET /oidc/callback`,
///   `GET|POST /inbox/sign-in/provider-link` (the password question), and, signed in,
///   `POST /inbox/sign-in-methods/link` (`provider`) and `/unlink` (`issuer`, `subject`), never the last way in.
///
/// A session made by a provider keeps its name (`web_inbox_sessions.provider`): `POST /inbox/sign-out` follows that
/// provider's `_LOGOUT`. Each answer, notice and audit record is the controller's; docs/passkeys.md and
/// docs/sign-in-providers.md.
extension WebInboxService: SignInSurfacePages {
    /// The sign-in page's provider buttons post here.
    public static let providerStartPath = "/inbox/sign-in/provider"

    /// The sign-in methods mounted for Pro users: the passkeys and providers this web inbox was given.
    var signInMethods: SignInMethodsController<ProSignInFamily> {
        let family = ProSignInFamily(inbox: self, accounts: providers?.accounts)
        let audit: AuditTrail = passkeys?.audit ?? providers?.audit ?? .disabled
        var onCeremony: @Sendable (String, String) -> Void = { _, _ in }
        if let passkeys { onCeremony = passkeys.onCeremony }
        return SignInMethodsController<ProSignInFamily>(
            family: family, passkeyStore: passkeys?.ceremonies.store, ceremonies: passkeys?.ceremonies,
            flow: providers?.flow, identities: providers?.identities, audit: audit, onCeremony: onCeremony)
    }

    func registerSignInMethods(into router: inout ContextRouter) {
        let methods = signInMethods
        methods.registerPasskeys(into: &router, bodyLimit: configuration.bodyLimit)
        methods.registerProviders(into: &router, bodyLimit: configuration.bodyLimit)
    }

    /// "Sign-in methods" of the Pro dashboard for the signed-in user of `call`: whether they have a password, their
    /// passkeys and the form that adds one, their linked providers with link and unlink forms; empty when the server
    /// offers neither passkeys nor providers. A page that shows it allows `script-src 'self'` (``offersPasskeys``).
    public func signInMethodsSection(_ call: WebInboxProUserCall) async throws -> HTML {
        guard passkeys != nil || providers != nil else { return .empty }
        let methods = signInMethods
        let ways = try await methods.ways(of: call.proUserID)
        let paths = ProSignInFamily.paths
        let providerPart = SignInProviderPart(
            providers: providers?.buttons ?? [], identities: ways.identities, csrfToken: call.csrfToken,
            targets: .init(linkAction: paths.linkStart ?? "", linkFields: [], unlinkAction: paths.unlink),
            time: WebInboxPage.time
        ).render()
        return WebInboxPasskeyParts.signInMethods(
            hasPassword: ways.hasPassword, removable: passkeys != nil && ways.keepsAWayIn(without: .password),
            passkeys: try await methods.passkeys(of: call.proUserID), providers: providerPart,
            csrfToken: call.csrfToken)
    }

    /// Whether Pro users are offered passkeys here: a page showing ``signInMethodsSection(_:)`` loads their script.
    public var offersPasskeys: Bool { passkeys != nil }

    public func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
    {
        await signInMethods.signInRefused(refusal, request, client: client, clear: clear)
    }

    public func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse
    {
        try await signInMethods.signInCompleted(completed, request, client: client, clear: clear)
    }
}
