import BrowserPages
import ClientAddress
import HTTP1
import Passkeys
import SecondFactors
import ServerKit
import SignInMethods
import SignInProviders

/// Owners as ``SignInMethodsController`` serves them (issue 67 item 1): their passkeys at `/owner/passkeys` and
/// `/owner/sign-in/passkey`, their providers at `/oidc/start`, `/oidc/link` and `/owner/sign-in-methods/unlink`; a
/// session on the owners' cookie, notices in the one-time cookie `/owner` shows (``OwnerSignInMethodsFlash``), events
/// on the owner's own trail.
struct OwnerSignInFamily: SignInFamily {
    let service: OwnerService

    /// A signed-in owner's call.
    struct Call: SignInCall {
        let request: HTTPRequest
        let parameters: RouteParameters
        let owner: Owner
        let context: RequestContext
        var account: String { owner.id }
        var label: String { owner.email }
        var client: String? { context.clientAddress?.description }
    }

    static let paths = SignInPaths(
        passkeySignIn: "/owner/sign-in/passkey", passkeyScript: OwnerPasskeyScript.script, passkeys: "/owner/passkeys",
        passwordRemoval: "/owner/password/remove", passkeyThrottleNamespace: "owner-passkey",
        providerStart: "/oidc/start", startNamesSurface: true, linkStart: nil,
        signInForLink: OwnerService.signInPath(next: "/owner"), linkQuestion: "/oidc/link",
        pendingCookie: "postern_oidc_link", pendingPurpose: "owner pending link", accountWords: "An owner account",
        unlink: "/owner/sign-in-methods/unlink", signIn: "/owner/sign-in", surface: .owners)

    var paths: SignInPaths { Self.paths }
    var actor: SignInAuditActor { .owner }
    var pages: PageRoutes { service.pages }
    var forms: BrowserForms { service.browser.forms }
    var csrfMessage: String { OwnerMessage.csrf }
    var passkeyThrottle: SignInThrottle { service.passkeyThrottle }
    func now() -> Int64 { service.browser.sessions.clock() }
    var freshProof: FreshProof { service.configuration.freshProof }

    func passkeyHolder(_ account: String) -> PasskeyHolder { .owner(account) }

    func account(of holder: PasskeyHolder) -> String? {
        if case .owner(let id) = holder { id } else { nil }
    }

    func hasPassword(_ account: String) async throws -> Bool { try await service.owners.hasPassword(ownerID: account) }

    func signedInAccount(_ request: HTTPRequest) async throws -> String? {
        try await service.browser.owner(of: request)?.owner.id
    }

    func lastProof(_ request: HTTPRequest) async throws -> Int64? {
        guard let token = request.cookie(OwnerBrowser.sessionCookie) else { return nil }
        return try await service.browser.sessions.openedAt(token: token)
    }

    func signedInRoute(_ area: SignInArea, _ handler: @escaping @Sendable (Call) async throws -> HTTPResponse)
        -> ContextRouteHandler
    {
        let (page, title) =
            switch area {
            case .passkeys: ("/owner", "Passkeys")
            case .providers: ("/owner", OwnerInboxPages.title)
            case .twoStep: (SecondFactorPaths.owners.twoStep, TwoStepParts.title)
            }
        return service.ownerContextRoute(page: page, title: title) { request, parameters, owner, context in
            try await handler(Call(request: request, parameters: parameters, owner: owner, context: context))
        }
    }

    func signInPage(_ status: HTTPStatus, _ request: HTTPRequest, error: String) -> HTTPResponse {
        var page = service.signInForm(next: OwnerService.localPath(request.formFields()["next"]))
        page.error = error
        return service.form(status, request, page)
    }

    /// The provider's sign-in not started (unknown, unreachable, misconfigured, busy): the one sentence and a way back
    /// to the sign-in page, where the password and passkeys still work (issue 83 item 11: the page had no way back).
    func startRefused(_ status: HTTPStatus, _ request: HTTPRequest, words: String) -> HTTPResponse {
        BrowserPage.signInRefused(status, title: "Sign in with a provider", words, backTo: paths.signIn, setCookies: [])
    }

    func notice(_ notice: SignInNotice, _ call: Call) async throws -> HTTPResponse {
        let flash: OwnerSignInMethodsFlash
        switch notice {
        case .passkeyAdded: flash = .passkeyAdded
        case .passkeyRefused: flash = .passkeyRefused
        case .passkeyAlreadyOnDevice: flash = .passkeyAlreadyOnDevice
        case .invalidPasskeyName: flash = .invalidPasskeyName
        case .unknownPasskey: flash = .unknownPasskey
        case .passkeyRenamed: flash = .passkeyRenamed
        case .passkeyRemoved: flash = .passkeyRemoved
        case .passwordRemoved: flash = .passwordRemoved
        case .wrongPassword: flash = .wrongPassword
        case .slowed: flash = .slowed
        case .lastWay: flash = .lastWay
        case .proofNeeded: flash = .proofNeeded
        case .unlinked: flash = .unlinked
        case .notLinked: return BrowserPage.message(.notFound, OwnerInboxPages.title, SignInMessage.notLinked)
        case .linkNotStarted(let words): return BrowserPage.message(.badRequest, OwnerInboxPages.title, words)
        }
        return HTMLPage.redirect(to: "/owner", setCookies: [service.browser.flashCookie(flash.rawValue)])
    }

    func linked(_ outcome: SignInLinkOutcome, _ request: HTTPRequest, clear: String) async throws -> HTTPResponse {
        let flash: OwnerSignInMethodsFlash =
            switch outcome {
            case .linked: .linked
            case .alreadyLinked: .alreadyLinked
            case .linkedToAnother: .linkedToAnother
            }
        return HTMLPage.redirect(to: "/owner", setCookies: [clear, service.browser.flashCookie(flash.rawValue)])
    }

    func laxCookie(_ name: String, _ value: String, maxAge: Int64, path: String) -> String {
        service.browser.forms.cookie(name, value, maxAge: maxAge, path: path)
    }

    func returnPath(_ next: String?) -> String { OwnerService.localPath(next) }

    func countSignIn(_ result: String) { service.signIns(result) }

    func startSession(_ account: String, _ request: HTTPRequest, by method: SignInMethod, setCookies: [String])
        async throws -> SignInSession?
    {
        guard let owner = try await service.owners.owner(id: account) else { return nil }
        let response: HTTPResponse
        switch method {
        case .passkey:
            response = try await service.startSession(
                owner, request, next: OwnerService.localPath(request.formFields()["next"]), setCookies: setCookies,
                methods: .passkey)
        case .provider(let provider, let returnTo, let password):
            // A policy that asks a provider's sign-in for a code too (``SecondFactorPolicy``) sends it to the second
            // step first; so does a second factor that is on when the password proved the link.
            let methods: AuthenticationMethods = password ? [.provider, .password] : .provider
            if let secondStep = try await service.secondStep(
                owner, by: methods, provider: provider.name, next: returnTo, setCookies: setCookies)
            {
                return SignInSession(response: secondStep, auditTarget: owner.email, opened: false)
            } else {
                response = try await service.startSession(
                    owner, request, next: returnTo, setCookies: setCookies, provider: provider.name, methods: methods)
            }
        }
        return SignInSession(response: response, auditTarget: owner.email)
    }

    func removePassword(_ call: Call, password: String) async throws -> PasswordCheck {
        switch try await service.owners.removePassword(of: call.owner, password: password, client: call.context.clientKey)
        {
        case .removed: .passed
        case .wrongPassword: .failed
        case .slowDown(let seconds): .slowed(seconds)
        }
    }

    func checkPassword(account: String, email: String, password: String, client: ClientAddressKey) async throws
        -> PasswordCheck
    {
        switch try await service.owners.signIn(email: email, password: password, client: client) {
        case .signedIn(let owner) where owner.id == account: .passed
        case .signedIn, .refused: .failed
        case .slowDown(let seconds): .slowed(seconds)
        }
    }

    func normalizedEmail(_ email: String) -> String? { OwnerCredentials.normalizedEmail(email) }

    func linkCandidate(email: String) async throws -> ProviderLinking.Candidate? {
        try await service.owners.linkCandidate(email: email).map {
            (account: $0.owner.id, email: $0.owner.email, emailVerified: $0.emailVerified, hasPassword: $0.hasPassword)
        }
    }

    func createWithoutPassword(email: String) async throws -> String? {
        do {
            return try await service.owners.createWithoutPassword(email: email).id
        } catch is OwnerError {
            return nil
        }
    }

    func removeWithoutPassword(id: String) async throws { _ = try await service.owners.removeWithoutPassword(id: id) }

    func markEmailVerified(id: String, email: String) async throws {
        try await service.owners.markEmailVerified(id: id, email: email)
    }
}

extension OwnerService {
    /// The sign-in methods mounted for owners: the passkeys this service has, and the providers of `flow`.
    func signInMethods(flow: SignInFlow? = nil, identities: SignInIdentityStore? = nil)
        -> SignInMethodsController<OwnerSignInFamily>
    {
        SignInMethodsController(
            family: OwnerSignInFamily(service: self), passkeyStore: passkeyStore, ceremonies: passkeys, flow: flow,
            identities: identities ?? self.identities, audit: audit, onCeremony: passkeyCeremonies)
    }

    /// `owner`'s ways in, read now (``SignInMethodsController/ways(of:)``).
    /// - Throws: storage errors.
    func signInWays(of ownerID: String) async throws -> SignInWays { try await signInMethods().ways(of: ownerID) }

    /// Adds the owners' passkey routes (``SignInMethodsController+Passkeys``).
    func registerPasskeys(into router: inout ContextRouter) {
        signInMethods().registerPasskeys(into: &router, bodyLimit: configuration.bodyLimit)
    }
}
