import Audit
import BrowserPages
import ClientAddress
import HTTP1
import ServerKit
import SignInProviders

/// Pro users' sign-in with identity providers (issue 54), the owners' flow on the web inbox's side:
/// - `POST /inbox/sign-in/provider` (`provider`, the sign-in page's `csrf_token`): begins a login for the `pro` surface,
///   sets the pre-session ``SignInFlow/browserCookie`` and sends the browser to the provider.
/// - `GET /oidc/callback` comes back to ``signInCompleted(_:_:client:clear:)`` (the composition root hands it the
///   `pro` surface's logins), which applies ``ProviderLinking`` over Pro users: a known identity signs in; one whose
///   verified email a Pro user has makes **no session** and asks that user's password at ``providerLinkPath`` (the
///   pre-hijack rule), unless `_TRUST_EMAIL` and the user's email is proven; `_ALLOW_SIGNUP` with a verified email in
///   an allowed domain makes a Pro user without a password (who makes `tm_pro_` tokens in the Pro dashboard, as
///   Mail.td's docs say); else a refusal page.
/// - `GET|POST /inbox/sign-in/provider-link`: the password question, with the password sign-in's backoff.
/// - Signed-in Pro users (``proUserRoute(_:)``): `POST /inbox/sign-in-methods/link` (`provider`) links from the
///   dashboard's "Sign-in methods"; `POST /inbox/sign-in-methods/unlink` (`issuer`, `subject`) unlinks, unless it is
///   the user's last way in (``SignInWays``).
///
/// A session made here keeps the provider's name (`web_inbox_sessions.provider`, migration 0058): `POST /inbox/sign-out`
/// ends it, then, when that provider's `_LOGOUT` is on, moves the browser on to its end-session page
/// (``SignInFlow/endSessionURL(provider:)``, the owners' sign-out's); other sessions sign out at Postern only.
///
/// A session made here answers a page that moves on to `/inbox` by itself (not a 303): the web inbox's session cookie
/// is `SameSite=Strict`, and a browser does not send it on a redirect that a provider's cross-site redirect began.
/// The audit trail gets `signin.linked|unlinked|signed_up|link_refused` and `pro.signin` (`{"method":"provider"}`) with
/// the Pro user as the actor, and `pro.signin_failed` (actor `oidc:<provider>`) for a refused callback.
extension WebInboxService: SignInSurfacePages {
    /// The sign-in page's provider buttons post here.
    public static let providerStartPath = "/inbox/sign-in/provider"
    /// The password question's page.
    static let providerLinkPath = "/inbox/sign-in/provider-link"
    /// The sealed pending link, sent to ``providerLinkPath`` only.
    static let providerPendingCookie = "postern_inbox_oidc_link"
    /// What Pro users' pending links are sealed for: an owner's never opens here.
    static let providerPendingPurpose = "pro pending link"
    static let providerTitle = "Sign in with a provider"

    func registerProviders(into router: inout ContextRouter) {
        guard providers != nil else { return }
        let limit = configuration.bodyLimit
        router.add(
            .POST, Self.providerStartPath, bodyLimit: limit,
            pages.limited { [self] request, _ in try await startProviderSignIn(request) })
        router.add(.GET, Self.providerLinkPath, pages.limited { [self] request, _ in providerLinkPage(request) })
        router.add(
            .POST, Self.providerLinkPath, bodyLimit: limit,
            pages.limited { [self] request, context in
                try await confirmProviderLink(request, client: context.clientKey, address: context.clientAddress?.description)
            })
        router.add(
            .POST, "/inbox/sign-in-methods/link", bodyLimit: limit,
            proUserRoute { [self] call in try await startProviderLink(call) })
        router.add(
            .POST, "/inbox/sign-in-methods/unlink", bodyLimit: limit,
            proUserRoute { [self] call in try await unlinkProvider(call) })
    }

    /// A cookie that must come back with the provider's cross-site redirect: `SameSite=Lax` (the owner pages' forms'),
    /// where the web inbox's own are `Strict`.
    func laxCookie(_ name: String, _ value: String, maxAge: Int64, path: String = "/") -> String {
        ownerBrowser.forms.cookie(name, value, maxAge: maxAge, path: path)
    }

    // MARK: - Start

    func startProviderSignIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fields = request.formFields()
        var page = signInForm()
        guard forms.csrfValid(fields, request) else {
            page.error = WebInboxPage.csrfMessage
            return form(.forbidden, request, page)
        }
        return try await beginProvider(fields["provider"] ?? "", account: nil, returnTo: "/inbox") { status, words in
            page.error = words
            return form(status, request, page)
        }
    }

    func startProviderLink(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        try await beginProvider(
            call.request.formFields()["provider"] ?? "", account: call.proUserID, returnTo: Self.dashboardPath
        ) { _, words in try await dashboardFlash(call, WebInboxFlash(error: words)) }
    }

    private func beginProvider(
        _ name: String, account: String?, returnTo: String,
        refused: (HTTPStatus, String) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let providers else { return WebInboxPage.notFound() }
        do {
            let (url, browser) = try await providers.flow.begin(
                provider: name, surface: .pro, account: account, returnTo: returnTo)
            // Not a 303: the sign-in page's CSP (form-action 'self') forbids following a form's answer to another site.
            return BrowserPage.moveOn(
                to: url, title: Self.providerTitle,
                setCookies: [laxCookie(SignInFlow.browserCookie, browser, maxAge: SignInTransactionStore.lifetime)])
        } catch SignInFlow.StartError.unknownProvider, SignInFlow.StartError.returnPathNotLocal {
            return try await refused(.badRequest, SignInMessage.unknownProvider)
        } catch SignInFlow.StartError.provider(let error) {
            await recordProviderFailure(providers, provider: name, reason: "discovery", client: nil)
            return try await refused(.serviceUnavailable, SignInMessage.unavailable(error))
        } catch SignInFlow.StartError.busy {
            return try await refused(.serviceUnavailable, SignInMessage.busy)
        }
    }

    // MARK: - Callback

    public func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
    {
        if let providers { await recordProviderFailure(providers, provider: "", reason: refusal.reason, client: client) }
        return providerRefusedPage(refusal.words, setCookies: [clear])
    }

    public func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse
    {
        let provider = completed.provider
        let outcome = try await providerOutcome(
            completed.identity, provider: provider, linkingFor: completed.transaction.account, client: client)
        switch outcome {
        case .signIn(let userID):
            return try await providerSession(userID, provider: provider, request, client: client, setCookies: [clear])
        case .linked(_, let linked):
            let (words, isError) = SignInMessage.linked(linked)
            let flash = isError ? WebInboxFlash(error: words) : WebInboxFlash(notice: words)
            // The dashboard's notices are bound to the session, whose Strict cookie a browser withholds from this
            // cross-site callback: then the dashboard shows the link itself, without the notice.
            if let session = request.cookie(Self.sessionCookie) { try await flashes.put(flash, session: session) }
            return BrowserPage.moveOn(to: Self.dashboardPath, title: "Sign-in methods", setCookies: [clear])
        case .confirmPassword(let pending):
            let sealed = try forms.seal(pending, purpose: Self.providerPendingPurpose, now: clock())
            return HTMLPage.redirect(
                to: Self.providerLinkPath,
                setCookies: [
                    clear,
                    laxCookie(
                        Self.providerPendingCookie, sealed, maxAge: PendingProviderLink.lifetime,
                        path: Self.providerLinkPath),
                ])
        case .refused(let refusal):
            return providerRefusedPage(
                refusal.map { SignInMessage.words(for: $0, provider: provider) } ?? SignInMessage.failed,
                setCookies: [clear])
        }
    }

    /// What a Pro login through every check comes to (``ProviderLinking`` over Pro users), with its links, sign-up and
    /// audit records made.
    enum ProviderOutcome: Equatable {
        /// A session for this Pro user.
        case signIn(proUserID: String)
        /// A link asked for from the dashboard of this user.
        case linked(proUserID: String, SignInLinkOutcome)
        /// No session: the password question.
        case confirmPassword(PendingProviderLink)
        /// Nothing; the reason to tell, or nil for the one generic sentence.
        case refused(ProviderLinking.Refusal?)
    }

    func providerOutcome(
        _ identity: ProviderIdentity, provider: SignInProvider, linkingFor: String?, client: String?
    ) async throws -> ProviderOutcome {
        guard let providers else { return .refused(nil) }
        let accounts = providers.accounts
        let linkedTo = try await providers.identities.linkedAccount(
            surface: .pro, issuer: identity.issuer, subject: identity.subject)
        var candidate: ProviderLinking.Candidate?
        if linkingFor == nil, linkedTo == nil,
            let email = ProviderLinking.verifiedEmail(identity, normalize: accounts.normalizedProEmail)
        {
            candidate = try await accounts.proLinkCandidate(email: email)
        }
        let decision = ProviderLinking.decide(
            identity: identity, provider: provider, linkingFor: linkingFor, linkedTo: linkedTo, candidate: candidate,
            normalize: accounts.normalizedProEmail)
        switch decision {
        case .signIn:
            // Recorded as a use now; nil when it was unlinked since it was read.
            guard
                let userID = try await providers.identities.signIn(
                    surface: .pro, issuer: identity.issuer, subject: identity.subject)
            else { return .refused(nil) }
            return .signIn(proUserID: userID)
        case .link(let userID):
            return .linked(
                proUserID: userID,
                try await linkProvider(providers, identity, provider: provider, userID: userID, how: "settings", client))
        case .alreadyLinked:
            return .linked(proUserID: linkingFor ?? "", .alreadyLinked)
        case .linkByTrustedEmail(let userID):
            guard
                try await linkProvider(
                    providers, identity, provider: provider, userID: userID, how: "trusted_email", client)
                    != .linkedToAnother
            else { return .refused(nil) }
            return .signIn(proUserID: userID)
        case .confirmPassword(let userID, let email):
            let pending = PendingProviderLink(
                provider: provider.name, issuer: identity.issuer, subject: identity.subject, email: email,
                account: userID)
            return pending.isSealable ? .confirmPassword(pending) : .refused(nil)
        case .signUp(let email):
            // Another sign-up may take the address meanwhile: nothing is linked into it by email.
            guard let userID = try await accounts.createProUserWithoutPassword(email: email) else { return .refused(nil) }
            let linked = try await providers.identities.link(
                surface: .pro, issuer: identity.issuer, subject: identity.subject, provider: provider.name,
                account: userID, email: email)
            guard linked == .linked else {
                // Another instance linked the identity first: the user made for it would have no way in.
                try await accounts.removeProUserWithoutPassword(id: userID)
                return .refused(nil)
            }
            await recordPro(
                providers, userID, .signInSignedUp, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "subject": identity.subject]))
            return .signIn(proUserID: userID)
        case .refuse(let refusal):
            await recordProviderFailure(providers, provider: provider.name, reason: refusal.rawValue, client: client)
            return .refused(refusal)
        }
    }

    /// Links `identity` to Pro user `userID`, records it, and proves the user's email when the provider verified that
    /// very address.
    private func linkProvider(
        _ providers: WebInboxProviders, _ identity: ProviderIdentity, provider: SignInProvider, userID: String,
        how: String, _ client: String?
    ) async throws -> SignInLinkOutcome {
        let email = ProviderLinking.verifiedEmail(identity, normalize: providers.accounts.normalizedProEmail)
        let outcome = try await providers.identities.link(
            surface: .pro, issuer: identity.issuer, subject: identity.subject, provider: provider.name,
            account: userID, email: email)
        switch outcome {
        case .linked:
            if let email { try await providers.accounts.markProUserEmailVerified(id: userID, email: email) }
            await recordPro(
                providers, userID, .signInLinked, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "subject": identity.subject, "how": how]))
        case .alreadyLinked:
            break
        case .linkedToAnother:
            await recordPro(
                providers, userID, .signInLinkRefused, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "reason": "linked_to_another"]))
        }
        return outcome
    }

    /// A session for Pro user `userID` (while they are active), recorded as `pro.signin` by `provider`.
    func providerSession(
        _ userID: String, provider: SignInProvider, _ request: HTTPRequest, client: String?, setCookies: [String]
    ) async throws -> HTTPResponse {
        guard let providers, let (principal, binding) = try await signIns?.signIn(.provider(proUserID: userID)) else {
            return providerRefusedPage(SignInMessage.failed, setCookies: setCookies)
        }
        let token = try await openSession(principal, binding, request, provider: provider.name)
        await recordPro(
            providers, userID, .proSignIn, target: userID, client: client,
            details: AuditDetails.json(["method": "provider", "provider": provider.name]))
        return BrowserPage.moveOn(to: "/inbox", title: "Signed in", setCookies: setCookies + sessionCookies(token))
    }

    // MARK: - The password question

    func providerLinkPage(_ request: HTTPRequest) -> HTTPResponse {
        guard let pending = pendingProviderLink(request) else {
            return WebInboxPage.message(.badRequest, Self.providerTitle, SignInMessage.linkExpired)
        }
        return providerLinkForm(.ok, request, pending, error: nil)
    }

    func confirmProviderLink(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws
        -> HTTPResponse
    {
        guard let providers, let pending = pendingProviderLink(request),
            let provider = providers.flow.configuration.provider(named: pending.provider)
        else { return WebInboxPage.message(.badRequest, Self.providerTitle, SignInMessage.linkExpired) }
        let fields = request.formFields()
        guard forms.csrfValid(fields, request) else {
            return providerLinkForm(.forbidden, request, pending, error: WebInboxPage.csrfMessage)
        }
        // The password sign-in's backoff, under the same name: the question is no way around it.
        let credentials = WebInboxCredentials.proUser(email: pending.email, password: fields["password"] ?? "")
        let attempt = try await throttle.attempt(Self.proUserKeys(email: pending.email, client: client), now: clock()) {
            try await signIns?.signIn(credentials)?.0 == .proUser(id: pending.account)
        }
        if case .slowed(let seconds) = attempt {
            var response = providerLinkForm(
                .tooManyRequests, request, pending, error: "Too many failed sign-ins. Try again in \(seconds) seconds.")
            response.headers.setRetryAfter(seconds: Int(seconds))
            return response
        }
        guard attempt == .passed else {
            await recordPro(
                providers, pending.account, .signInLinkRefused, target: provider.name, client: address,
                details: AuditDetails.json(["issuer": pending.issuer, "reason": "wrong_password"]))
            return providerLinkForm(.unauthorized, request, pending, error: SignInMessage.wrongPassword)
        }
        let identity = ProviderIdentity(
            issuer: pending.issuer, subject: pending.subject, email: pending.email, emailVerified: true, name: nil)
        let clear = laxCookie(Self.providerPendingCookie, "", maxAge: 0, path: Self.providerLinkPath)
        guard
            try await linkProvider(
                providers, identity, provider: provider, userID: pending.account, how: "password", address)
                != .linkedToAnother
        else { return providerRefusedPage(SignInMessage.failed, setCookies: [clear]) }
        return try await providerSession(pending.account, provider: provider, request, client: address, setCookies: [clear])
    }

    private func pendingProviderLink(_ request: HTTPRequest) -> PendingProviderLink? {
        request.cookie(Self.providerPendingCookie).flatMap {
            forms.pendingLink($0, purpose: Self.providerPendingPurpose, now: clock())
        }
    }

    private func providerLinkForm(
        _ status: HTTPStatus, _ request: HTTPRequest, _ pending: PendingProviderLink, error: String?
    ) -> HTTPResponse {
        forms.linkQuestionPage(
            status, request, pending, action: Self.providerLinkPath, account: "A Pro account",
            providerName: providers?.flow.configuration.provider(named: pending.provider)?.displayName
                ?? pending.provider,
            error: error)
    }

    // MARK: - Unlink

    func unlinkProvider(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        guard let providers else { return WebInboxPage.notFound() }
        let fields = call.request.formFields()
        let issuer = fields["issuer"] ?? "", subject = fields["subject"] ?? ""
        let identity: SignInIdentity
        // The last way in (no password, no passkey that signs in, no other linked provider) stays.
        switch try await proSignInWays(call.proUserID).unlinking(issuer: issuer, subject: subject) {
        case .notLinked: return try await dashboardFlash(call, WebInboxFlash(error: SignInMessage.notLinked))
        case .lastWay: return try await dashboardFlash(call, WebInboxFlash(error: SignInMessage.lastWay))
        case .allowed(let linked): identity = linked
        }
        if try await providers.identities.unlink(
            surface: .pro, account: call.proUserID, issuer: issuer, subject: subject)
        {
            await recordPro(
                providers, call.proUserID, .signInUnlinked, target: identity.provider, client: call.client,
                details: AuditDetails.json(["issuer": issuer, "subject": subject]))
        }
        return try await dashboardFlash(call, WebInboxFlash(notice: SignInMessage.unlinked))
    }

    /// Pro user `userID`'s ways in, read now: their password (none once they removed it, or when a provider made
    /// them), their passkeys that sign in and their linked providers.
    func proSignInWays(_ userID: String) async throws -> SignInWays {
        let passkeys = try await passkeys?.ceremonies.store.credentials(of: .proUser(userID)) ?? []
        return SignInWays(
            hasPassword: try await signIns?.proUserHasPassword(userID) ?? false,
            passkeys: passkeys.filter { $0.clonedAt == nil }.map(\.id),
            identities: try await providers?.identities.identities(surface: .pro, account: userID) ?? [])
    }

    // MARK: - Shared

    private func dashboardFlash(_ call: WebInboxProUserCall, _ flash: WebInboxFlash) async throws -> HTTPResponse {
        try await call.put(flash)
        return HTMLPage.redirect(to: Self.dashboardPath)
    }

    private func providerRefusedPage(_ message: String, setCookies: [String]) -> HTTPResponse {
        BrowserPage.signInRefused(
            .forbidden, title: Self.providerTitle, message, backTo: "/inbox/sign-in", setCookies: setCookies)
    }

    private func recordPro(
        _ providers: WebInboxProviders, _ userID: String, _ action: AuditAction, target: String, client: String?,
        details: String
    ) async {
        await providers.audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: userID, ownerID: nil, action: action, target: target,
                clientAddress: client, details: details)
        }
    }

    /// `pro.signin_failed` with the provider (or `oidc` when the callback named none) as the actor and the reason;
    /// never a code, token or state.
    private func recordProviderFailure(
        _ providers: WebInboxProviders, provider: String, reason: String, client: String?
    ) async {
        let actor = provider.isEmpty ? "oidc" : "oidc:" + provider
        await providers.audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: actor, ownerID: nil, action: .proSignInFailed, target: actor,
                clientAddress: client, details: AuditDetails.json(["reason": reason]))
        }
    }
}
