import BrowserPages
import ClientAddress
import HTTP1
import Passkeys
import ServerKit
import SignInMethods
import SignInProviders

/// Pro users as ``SignInMethodsController`` serves them (issue 67 item 1): their passkeys at `/inbox/passkeys` and
/// `/inbox/sign-in/passkey`, their providers at `/inbox/sign-in/provider`, `/inbox/sign-in/provider-link` and
/// `/inbox/sign-in-methods/link|unlink`; a web-inbox session resting on what the Mail.td side says
/// (``WebInboxSignIn``), notices bound to the session on the Pro dashboard, events on the operator's trail with the
/// Pro user as the actor.
struct ProSignInFamily: SignInFamily {
    typealias Call = WebInboxProUserCall

    let inbox: WebInboxService
    /// The Pro users a provider's identity may reach; nil without providers.
    let accounts: (any WebInboxProAccounts)?

    static let paths = SignInPaths(
        passkeySignIn: "/inbox/sign-in/passkey", passkeyScript: WebInboxPasskeys.script, passkeys: "/inbox/passkeys",
        passwordRemoval: "/inbox/password/remove", passkeyThrottleNamespace: "inbox-passkey",
        providerStart: WebInboxService.providerStartPath, startNamesSurface: false,
        linkStart: "/inbox/sign-in-methods/link", signInForLink: "/inbox/sign-in",
        linkQuestion: "/inbox/sign-in/provider-link", pendingCookie: "postern_inbox_oidc_link",
        pendingPurpose: "pro pending link", accountWords: "A Pro account", unlink: "/inbox/sign-in-methods/unlink",
        signIn: "/inbox/sign-in", surface: .pro)

    var paths: SignInPaths { Self.paths }
    var actor: SignInAuditActor { .pro }
    var pages: PageRoutes { inbox.pages }
    var forms: BrowserForms { inbox.forms }
    var csrfMessage: String { WebInboxPage.csrfMessage }
    var passkeyThrottle: SignInThrottle { inbox.throttle }
    func now() -> Int64 { inbox.clock() }
    var freshProof: FreshProof { inbox.configuration.freshProof }

    func passkeyHolder(_ account: String) -> PasskeyHolder { .proUser(account) }

    func account(of holder: PasskeyHolder) -> String? {
        if case .proUser(let id) = holder { id } else { nil }
    }

    func hasPassword(_ account: String) async throws -> Bool {
        try await inbox.signIns?.proUserHasPassword(account) ?? false
    }

    /// Never asked: a Pro user's link begins on a signed-in page (``SignInPaths/linkStart``).
    func signedInAccount(_ request: HTTPRequest) async throws -> String? { nil }

    /// A Pro user's session proves them as of its sign-in: their password, a passkey, a provider, or a `tm_pro_`
    /// token they made (a credential as strong as the password that made it; revoking it ends its sessions).
    func lastProof(_ request: HTTPRequest) async throws -> Int64? {
        guard let token = request.cookie(WebInboxService.sessionCookie) else { return nil }
        return try await inbox.sessions.openedAt(token: token)
    }

    func signedInRoute(_ area: SignInArea, _ handler: @escaping @Sendable (Call) async throws -> HTTPResponse)
        -> ContextRouteHandler
    {
        inbox.proUserRoute(handler)
    }

    func signInPage(_ status: HTTPStatus, _ request: HTTPRequest, error: String) -> HTTPResponse {
        var page = inbox.signInForm()
        page.error = error
        return inbox.form(status, request, page)
    }

    func startRefused(_ status: HTTPStatus, _ request: HTTPRequest, words: String) -> HTTPResponse {
        signInPage(status, request, error: words)
    }

    func notice(_ notice: SignInNotice, _ call: Call) async throws -> HTTPResponse {
        let flash: WebInboxFlash
        switch notice {
        case .passkeyAdded: flash = WebInboxFlash.success("Passkey added.")
        case .passkeyRefused: flash = WebInboxFlash.error(PasskeyPageParts.registrationRefused)
        case .passkeyAlreadyOnDevice: flash = WebInboxFlash.error(PasskeyPageParts.alreadyOnDevice)
        case .invalidPasskeyName:
            flash = WebInboxFlash.error(
                "A passkey's name is 1 to \(PasskeyStore.maximumNameLength) characters, without control characters.")
        case .unknownPasskey: flash = WebInboxFlash.error("There is no such passkey.")
        case .passkeyRenamed: flash = WebInboxFlash.success("Passkey renamed.")
        case .passkeyRemoved: flash = WebInboxFlash.success("Passkey removed.")
        case .passwordRemoved: flash = WebInboxFlash.success(SignInMessage.passwordRemoved)
        case .wrongPassword: flash = WebInboxFlash.error(SignInMessage.passwordNotRemoved)
        case .slowed(let seconds): flash = WebInboxFlash.error(SignInMessage.passwordRemovalSlowed(retryAfter: seconds))
        case .lastWay: flash = WebInboxFlash.error(SignInMessage.lastWay)
        case .notLinked: flash = WebInboxFlash.error(SignInMessage.notLinked)
        case .unlinked: flash = WebInboxFlash.success(SignInMessage.unlinked)
        case .linkNotStarted(let words): flash = WebInboxFlash.error(words)
        case .proofNeeded: flash = WebInboxFlash.error(SignInMessage.proofNeeded)
        }
        try await call.put(flash)
        return HTMLPage.redirect(to: WebInboxService.dashboardPath)
    }

    func linked(_ outcome: SignInLinkOutcome, _ request: HTTPRequest, clear: String) async throws -> HTTPResponse {
        let (words, isError) = SignInMessage.linked(outcome)
        let flash = isError ? WebInboxFlash.error(words) : WebInboxFlash.success(words)
        // The dashboard's notices are bound to the session, whose Strict cookie a browser withholds from this
        // cross-site callback: then the dashboard shows the link itself, without the notice.
        if let session = request.cookie(WebInboxService.sessionCookie) {
            try await inbox.flashes.put(flash, session: session)
        }
        return BrowserPage.moveOn(to: WebInboxService.dashboardPath, title: "Sign-in methods", setCookies: [clear])
    }

    /// `SameSite=Lax` (the owner pages' forms'), where the web inbox's own cookies are `Strict`.
    func laxCookie(_ name: String, _ value: String, maxAge: Int64, path: String) -> String {
        inbox.ownerBrowser.forms.cookie(name, value, maxAge: maxAge, path: path)
    }

    /// `/inbox`: a Pro user's session always starts there.
    func returnPath(_ next: String?) -> String { "/inbox" }

    func countSignIn(_ result: String) {}

    func startSession(_ account: String, _ request: HTTPRequest, by method: SignInMethod, setCookies: [String])
        async throws -> SignInSession?
    {
        switch method {
        case .passkey:
            guard let (principal, binding) = try await inbox.signIns?.signIn(.passkey(proUserID: account)) else {
                return nil
            }
            return SignInSession(
                response: try await inbox.startSession(principal, binding, request), auditTarget: account)
        case .provider(let provider, _, let password):
            guard let (principal, binding) = try await inbox.signIns?.signIn(.provider(proUserID: account)) else {
                return nil
            }
            // The password proved the link: the second factor guards it as it guards a password sign-in.
            if password,
                let secondStep = try await inbox.secondStep(
                    proUserID: account, binding: binding, next: "/inbox", setCookies: setCookies)
            {
                return SignInSession(response: secondStep, auditTarget: account, opened: false)
            }
            let token = try await inbox.openSession(principal, binding, request, provider: provider.name)
            // Not a 303: the session's Strict cookie would not be sent on a redirect a cross-site one began.
            return SignInSession(
                response: BrowserPage.moveOn(
                    to: "/inbox", title: "Signed in", setCookies: setCookies + inbox.sessionCookies(token)),
                auditTarget: account)
        }
    }

    func removePassword(_ call: Call, password: String) async throws -> PasswordCheck {
        guard let signIns = inbox.signIns else { return .failed }
        let keys = signIns.backoffKeys(.proUser(email: call.viewer.label), client: call.clientKey)
        return Self.check(
            try await inbox.throttle.attempt(keys, now: inbox.clock()) {
                try await signIns.removeProUserPassword(call.proUserID, password: password)
            })
    }

    func checkPassword(account: String, email: String, password: String, client: ClientAddressKey) async throws
        -> PasswordCheck
    {
        guard let signIns = inbox.signIns else { return .failed }
        let credentials = WebInboxCredentials.proUser(email: email, password: password)
        return Self.check(
            try await inbox.throttle.attempt(signIns.backoffKeys(.proUser(email: email), client: client), now: inbox.clock())
            {
                try await signIns.signIn(credentials)?.0 == .proUser(id: account)
            })
    }

    private static func check(_ attempt: SignInThrottle.Attempt) -> PasswordCheck {
        switch attempt {
        case .passed: .passed
        case .failed: .failed
        case .slowed(let seconds): .slowed(seconds)
        }
    }

    func normalizedEmail(_ email: String) -> String? { accounts?.normalizedProEmail(email) }

    func linkCandidate(email: String) async throws -> ProviderLinking.Candidate? {
        try await accounts?.proLinkCandidate(email: email)
    }

    func createWithoutPassword(email: String) async throws -> String? {
        try await accounts?.createProUserWithoutPassword(email: email)
    }

    func removeWithoutPassword(id: String) async throws { try await accounts?.removeProUserWithoutPassword(id: id) }

    func markEmailVerified(id: String, email: String) async throws {
        try await accounts?.markProUserEmailVerified(id: id, email: email)
    }
}

extension WebInboxProUserCall: SignInCall {
    public var account: String { proUserID }
    public var label: String { viewer.label }
}
