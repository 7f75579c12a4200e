import Audit
import BrowserPages
import ClientAddress
import HTTP1
import ServerKit
import SignInProviders

/// Owners' sign-in with identity providers (issue 54): the routes between the buttons and the provider and back.
///
/// - `POST /oidc/start` (`provider`, `surface=owners`, `intent` `sign-in` or `link`, `next`, `csrf_token`): begins a
///   login transaction (``SignInFlow``), sets the pre-session ``browserCookie`` it is bound to and sends the browser to
///   the provider. `intent=link` needs a session: the identity will be linked to that owner.
/// - `GET /oidc/callback` (``SignInFlow/answer(_:surfaces:fallback:client:clear:)``, registered by the composition
///   root for every surface) hands the owners' logins to ``signInCompleted(_:_:client:clear:)``, which applies
///   ``OwnerProviderLinking``: a session (the password sign-in's cookie), a link, a new owner, the password question
///   of ``linkPath``, or a refusal page that makes no session; a callback no transaction names is refused here too
///   (``signInRefused(_:_:client:clear:)``). Every outcome clears the pre-session cookie.
/// - `GET|POST /oidc/link`: the password question of an identity whose verified email an owner already has: nothing
///   is linked and no session exists until that owner's password is typed (with the password sign-in's backoff).
/// - `POST /owner/sign-in-methods/unlink` (`issuer`, `subject`): unlinks, unless it is the owner's last way to sign in.
///
/// Links, unlinks, provider sign-ups and refused links are on the audit trail; a refused callback is an
/// `owner.signin_failed` with its reason on the operator's.
public struct OwnerProviderPages: SignInSurfacePages {
    let service: OwnerService
    let flow: SignInFlow
    let identities: SignInIdentityStore

    /// The pre-session cookie a login transaction is bound to (`HttpOnly; SameSite=Lax`, ten minutes).
    static let browserCookie = SignInFlow.browserCookie
    /// The sealed pending link (``PendingProviderLink``), sent to ``linkPath`` only.
    static let pendingCookie = "postern_oidc_link"
    /// The password question's page.
    static let linkPath = "/oidc/link"
    /// What the owners' pending links are sealed for (``PendingProviderLink/seal(browserKey:purpose:now:)``).
    static let pendingPurpose = "owner pending link"
    static let title = "Sign in with a provider"

    /// - Parameters:
    ///   - service: the owners' sessions, CSRF, store and audit trail.
    ///   - flow: the providers and their logins.
    ///   - identities: the linked identities.
    public init(service: OwnerService, flow: SignInFlow, identities: SignInIdentityStore) {
        self.service = service
        self.flow = flow
        self.identities = identities
    }

    /// Adds `POST /oidc/start`, `GET|POST /oidc/link` and `POST /owner/sign-in-methods/unlink` (the callback is every
    /// surface's: ``SignInFlow/answer(_:surfaces:fallback:client:clear:)``).
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        let pages = service.pages
        router.add(.POST, "/oidc/start", bodyLimit: limit, pages.limited { request, _ in try await start(request) })
        router.add(.GET, Self.linkPath, pages.limited { request, _ in try await linkPage(request) })
        router.add(
            .POST, Self.linkPath, bodyLimit: limit,
            pages.limited { request, context in
                try await confirmLink(request, client: context.clientKey, address: context.clientAddress?.description)
            })
        router.add(
            .POST, "/owner/sign-in-methods/unlink", bodyLimit: limit,
            service.ownerRoute(page: "/owner", title: OwnerInboxPages.title) { request, _, owner, client in
                try await unlink(request, owner, client: client)
            })
    }

    // MARK: - Start

    func start(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fields = request.formFields()
        guard service.browser.csrfValid(fields, request) else {
            return BrowserPage.message(.forbidden, Self.title, OwnerMessage.csrf)
        }
        guard fields["surface"] == SignInProvider.Surface.owners.rawValue else {
            return BrowserPage.message(.badRequest, Self.title, ProviderMessage.unknownProvider)
        }
        let next = OwnerService.localPath(fields["next"])
        var account: String?
        if fields["intent"] == "link" {
            guard let (owner, _) = try await service.browser.owner(of: request) else {
                return HTMLPage.redirect(to: OwnerService.signInPath(next: "/owner"))
            }
            account = owner.id
        }
        do {
            let (url, browser) = try await flow.begin(
                provider: fields["provider"] ?? "", surface: .owners, account: account, returnTo: next)
            // Not a 303: the sign-in page's CSP (form-action 'self') forbids following a form's answer to another site.
            return BrowserPage.moveOn(
                to: url, title: Self.title,
                setCookies: [service.browser.forms.cookie(Self.browserCookie, browser, maxAge: SignInTransactionStore.lifetime)])
        } catch SignInFlow.StartError.unknownProvider, SignInFlow.StartError.returnPathNotLocal {
            return BrowserPage.message(.badRequest, Self.title, ProviderMessage.unknownProvider)
        } catch SignInFlow.StartError.provider(let error) {
            await recordFailure(provider: fields["provider"] ?? "", reason: "discovery", detail: "\(error)", client: nil)
            return BrowserPage.message(.serviceUnavailable, Self.title, ProviderMessage.unavailable(error))
        } catch SignInFlow.StartError.busy {
            return BrowserPage.message(.serviceUnavailable, Self.title, ProviderMessage.busy)
        }
    }

    // MARK: - Callback

    /// A refused callback: `owner.signin_failed` with the refusal's reason, the one sentence, no session.
    public func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
    {
        await recordFailure(provider: "", reason: refusal.reason, detail: nil, client: client)
        return refusedPage(.forbidden, refusal.words, setCookies: [clear])
    }

    /// An owners' login through every check: ``OwnerProviderLinking`` decides.
    public func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse
    {
        let provider = completed.provider, identity = completed.identity
        let linkedTo = try await identities.linkedAccount(
            surface: .owners, issuer: identity.issuer, subject: identity.subject)
        var candidate: OwnerLinkCandidate?
        if completed.transaction.account == nil, linkedTo == nil, let email = OwnerProviderLinking.verifiedEmail(identity) {
            candidate = try await service.owners.linkCandidate(email: email)
        }
        let decision = OwnerProviderLinking.decide(
            identity: identity, provider: provider, linkingFor: completed.transaction.account, linkedTo: linkedTo,
            candidate: candidate)
        let returnTo = OwnerService.localPath(completed.transaction.returnTo)
        switch decision {
        case .signIn:
            // Recorded as a use now; nil when it was unlinked since it was read.
            guard
                let ownerID = try await identities.signIn(
                    surface: .owners, issuer: identity.issuer, subject: identity.subject)
            else { return refusedPage(.forbidden, ProviderMessage.failed, setCookies: [clear]) }
            return try await signIn(ownerID: ownerID, provider: provider, next: returnTo, request, client, [clear])
        case .link(let ownerID):
            let flash: OwnerSignInMethodsFlash
            switch try await link(identity, provider: provider, ownerID: ownerID, how: "settings", client: client) {
            case .linked: flash = .linked
            case .alreadyLinked: flash = .alreadyLinked
            case .linkedToAnother: flash = .linkedToAnother
            }
            return HTMLPage.redirect(to: "/owner", setCookies: [clear, service.browser.flashCookie(flash.rawValue)])
        case .alreadyLinked:
            return HTMLPage.redirect(
                to: "/owner", setCookies: [clear, service.browser.flashCookie(OwnerSignInMethodsFlash.alreadyLinked.rawValue)])
        case .linkByTrustedEmail(let ownerID):
            guard try await link(identity, provider: provider, ownerID: ownerID, how: "trusted_email", client: client)
                != .linkedToAnother
            else { return refusedPage(.forbidden, ProviderMessage.failed, setCookies: [clear]) }
            return try await signIn(ownerID: ownerID, provider: provider, next: returnTo, request, client, [clear])
        case .confirmPassword(let ownerID, let email):
            let pending = PendingProviderLink(
                provider: provider.name, issuer: identity.issuer, subject: identity.subject, email: email,
                account: ownerID)
            guard pending.isSealable else { return refusedPage(.forbidden, ProviderMessage.failed, setCookies: [clear]) }
            let sealed = try pending.seal(
                browserKey: service.browser.key, purpose: Self.pendingPurpose, now: service.browser.sessions.clock())
            return HTMLPage.redirect(
                to: Self.linkPath,
                setCookies: [
                    clear,
                    service.browser.forms.cookie(
                        Self.pendingCookie, sealed, maxAge: PendingProviderLink.lifetime, path: Self.linkPath),
                ])
        case .signUp(let email):
            return try await signUp(email: email, identity, provider: provider, next: returnTo, request, client, [clear])
        case .refuse(let refusal):
            await recordFailure(provider: provider.name, reason: refusal.rawValue, detail: nil, client: client)
            return refusedPage(.forbidden, ProviderMessage.words(for: refusal, provider: provider), setCookies: [clear])
        }
    }

    /// A session for the owner `ownerID`, as the password sign-in opens one.
    private func signIn(
        ownerID: String, provider: SignInProvider, next: String, _ request: HTTPRequest, _ client: String?,
        _ cookies: [String]
    ) async throws -> HTTPResponse {
        guard let owner = try await service.owners.owner(id: ownerID) else {
            return refusedPage(.forbidden, ProviderMessage.failed, setCookies: cookies)
        }
        service.signIns("success")
        let response = try await service.startSession(
            owner, request, next: next, setCookies: cookies, provider: provider.name)
        await service.audit.owner(
            owner.id, .ownerSignIn, target: owner.email, client: client,
            details: AuditDetails.json(["provider": provider.name]))
        return response
    }

    /// Links `identity` to `ownerID`, records it, and proves the owner's email when the provider verified that very
    /// address.
    private func link(
        _ identity: ProviderIdentity, provider: SignInProvider, ownerID: String, how: String, client: String?
    ) async throws -> SignInLinkOutcome {
        let email = OwnerProviderLinking.verifiedEmail(identity)
        let outcome = try await identities.link(
            surface: .owners, issuer: identity.issuer, subject: identity.subject, provider: provider.name,
            account: ownerID, email: email)
        let details = AuditDetails.json(["issuer": identity.issuer, "subject": identity.subject, "how": how])
        switch outcome {
        case .linked:
            if let email { try await service.owners.markEmailVerified(id: ownerID, email: email) }
            await service.audit.owner(ownerID, .signInLinked, target: provider.name, client: client, details: details)
        case .alreadyLinked:
            break
        case .linkedToAnother:
            await service.audit.owner(
                ownerID, .signInLinkRefused, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "reason": "linked_to_another"]))
        }
        return outcome
    }

    /// A new owner without a password for `email`, the identity linked to them, and a session.
    private func signUp(
        email: String, _ identity: ProviderIdentity, provider: SignInProvider, next: String, _ request: HTTPRequest,
        _ client: String?, _ cookies: [String]
    ) async throws -> HTTPResponse {
        let owner: Owner
        do {
            owner = try await service.owners.createWithoutPassword(email: email)
        } catch is OwnerError {
            // Another sign-up took the address meanwhile: nothing is linked into it by email.
            return refusedPage(.forbidden, ProviderMessage.failed, setCookies: cookies)
        }
        let outcome = try await identities.link(
            surface: .owners, issuer: identity.issuer, subject: identity.subject, provider: provider.name,
            account: owner.id, email: email)
        guard outcome == .linked else {
            // Another instance linked the identity first: the owner made for it would have no way in.
            try await service.owners.removeWithoutPassword(id: owner.id)
            return refusedPage(.forbidden, ProviderMessage.failed, setCookies: cookies)
        }
        await service.audit.owner(
            owner.id, .signInSignedUp, target: provider.name, client: client,
            details: AuditDetails.json(["issuer": identity.issuer, "subject": identity.subject]))
        return try await signIn(ownerID: owner.id, provider: provider, next: next, request, client, cookies)
    }

    // MARK: - The password question

    func linkPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let pending = pending(request) else {
            return BrowserPage.message(.badRequest, Self.title, ProviderMessage.linkExpired)
        }
        return linkForm(.ok, request, pending, error: nil)
    }

    func confirmLink(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws -> HTTPResponse {
        guard let pending = pending(request) else {
            return BrowserPage.message(.badRequest, Self.title, ProviderMessage.linkExpired)
        }
        let fields = request.formFields()
        guard service.browser.csrfValid(fields, request) else {
            return linkForm(.forbidden, request, pending, error: OwnerMessage.csrf)
        }
        guard let provider = flow.configuration.provider(named: pending.provider) else {
            return BrowserPage.message(.badRequest, Self.title, ProviderMessage.linkExpired)
        }
        switch try await service.owners.signIn(email: pending.email, password: fields["password"] ?? "", client: client)
        {
        case .signedIn(let owner) where owner.id == pending.account:
            let identity = ProviderIdentity(
                issuer: pending.issuer, subject: pending.subject, email: pending.email, emailVerified: true, name: nil)
            let clear = service.browser.forms.cookie(Self.pendingCookie, "", maxAge: 0, path: Self.linkPath)
            guard try await link(identity, provider: provider, ownerID: owner.id, how: "password", client: address)
                != .linkedToAnother
            else { return refusedPage(.forbidden, ProviderMessage.failed, setCookies: [clear]) }
            return try await signIn(ownerID: owner.id, provider: provider, next: "/owner", request, address, [clear])
        case .signedIn, .refused:
            service.signIns("refused")
            await service.audit.owner(
                pending.account, .signInLinkRefused, target: provider.name, client: address,
                details: AuditDetails.json(["issuer": pending.issuer, "reason": "wrong_password"]))
            return linkForm(.unauthorized, request, pending, error: ProviderMessage.wrongPassword)
        case .slowDown(let retryAfter):
            service.signIns("slowed")
            var response = linkForm(.tooManyRequests, request, pending, error: OwnerMessage.slowDown(retryAfter))
            response.headers.setRetryAfter(seconds: Int(retryAfter))
            return response
        }
    }

    private func pending(_ request: HTTPRequest) -> PendingProviderLink? {
        request.cookie(Self.pendingCookie).flatMap {
            PendingProviderLink(
                cookie: $0, browserKey: service.browser.key, purpose: Self.pendingPurpose,
                now: service.browser.sessions.clock())
        }
    }

    private func linkForm(_ status: HTTPStatus, _ request: HTTPRequest, _ pending: PendingProviderLink, error: String?)
        -> HTTPResponse
    {
        service.browser.forms.linkQuestionPage(
            status, request, pending, action: Self.linkPath, account: "An owner account",
            providerName: flow.configuration.provider(named: pending.provider)?.displayName ?? pending.provider,
            error: error)
    }

    // MARK: - Unlink

    func unlink(_ request: HTTPRequest, _ owner: Owner, client: String?) async throws -> HTTPResponse {
        let fields = request.formFields()
        let issuer = fields["issuer"] ?? "", subject = fields["subject"] ?? ""
        let identity: SignInIdentity
        // The last way in (no password, no passkey that signs in, no other linked provider) stays.
        switch try await service.signInWays(of: owner.id).unlinking(issuer: issuer, subject: subject) {
        case .notLinked: return BrowserPage.message(.notFound, OwnerInboxPages.title, ProviderMessage.notLinked)
        case .lastWay: return service.lastWayFlash()
        case .allowed(let linked): identity = linked
        }
        if try await identities.unlink(surface: .owners, account: owner.id, issuer: issuer, subject: subject) {
            await service.audit.owner(
                owner.id, .signInUnlinked, target: identity.provider, client: client,
                details: AuditDetails.json(["issuer": issuer, "subject": subject]))
        }
        return HTMLPage.redirect(
            to: "/owner", setCookies: [service.browser.flashCookie(OwnerSignInMethodsFlash.unlinked.rawValue)])
    }

    // MARK: - Shared

    private func refusedPage(_ status: HTTPStatus, _ message: String, setCookies: [String]) -> HTTPResponse {
        BrowserPage.signInRefused(status, title: Self.title, message, backTo: "/owner/sign-in", setCookies: setCookies)
    }

    /// `owner.signin_failed` on the operator's trail: the provider (or `oidc` when the callback named none) as the
    /// actor, the reason; never a code, token or state.
    private func recordFailure(provider: String, reason: String, detail: String?, client: String?) async {
        let actor = provider.isEmpty ? "oidc" : "oidc:" + provider
        await service.audit.record {
            AuditEvent(
                time: $0, actorKind: .owner, actorID: actor, ownerID: nil, action: .ownerSignInFailed, target: actor,
                clientAddress: client,
                details: detail.map { AuditDetails.json(["reason": reason, "detail": $0]) }
                    ?? AuditDetails.json(["reason": reason]))
        }
    }
}

/// What the owners' provider pages say (``SignInMessage``, every surface's sentences).
typealias ProviderMessage = SignInMessage
