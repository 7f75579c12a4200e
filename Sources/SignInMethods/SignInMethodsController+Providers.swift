import Audit
import BrowserPages
import ClientAddress
import HTTP1
import ServerKit
import SignInProviders

/// Sign-in with identity providers (issue 54), for every family: the routes between the buttons and the provider and
/// back.
/// - `POST <providerStart>` (`provider`, the pre-session `csrf_token`; at the shared `/oidc/start` also `surface` and
///   `intent` `sign-in` or `link`, a link needing a session, and `next`): begins a login transaction (``SignInFlow``),
///   sets the pre-session ``SignInFlow/browserCookie`` it is bound to and sends the browser to the provider.
///   `POST <linkStart>` (`provider`), signed in, begins a link from "Sign-in methods". A link begins only on a
///   session whose sign-in is recent (``SignInFamily/freshProof``, issue 66 item 4), else it is refused (`signin.link_refused`,
///   reason `proof_needed`) with ``SignInMessage/proofNeeded``.
/// - `GET /oidc/callback` (``SignInFlow/answer(_:surfaces:fallback:client:clear:)``, every family's) hands this
///   family's logins to ``signInCompleted(_:_:client:clear:)``, which applies ``ProviderLinking``: a known identity
///   signs in; one whose verified email an account has makes **no session** and asks that account's password at
///   `<linkQuestion>` (the pre-hijack rule), unless `_TRUST_EMAIL` and the email is proven; `_ALLOW_SIGNUP` with a
///   verified email in an allowed domain makes an account without a password; else a refusal page. Every outcome
///   clears the pre-session cookie.
/// - `GET|POST <linkQuestion>`: the password question, with the password sign-in's backoff.
/// - `POST <unlink>` (`issuer`, `subject`), signed in: unlinks, unless it is the account's last way in.
///
/// Links, unlinks, sign-ups and refused links are on the audit trail (`signin.*`) with the account as the actor, a
/// sign-in as the family's (`{"method":"provider","provider":...}`), and a refused callback as the family's
/// `signin_failed` (actor `oidc:<provider>`, or `oidc` when the callback named none).
extension SignInMethodsController: SignInSurfacePages {
    /// Adds the provider routes when this mount has a flow (the callback is every family's: the composition root's).
    public func registerProviders(into router: inout ContextRouter, bodyLimit limit: Int) {
        guard flow != nil else { return }
        let paths = family.paths, pages = family.pages
        router.add(
            .POST, paths.providerStart, bodyLimit: limit,
            pages.limited { request, context in
                try await start(request, client: context.clientAddress?.description, key: context.clientKey)
            })
        router.add(.GET, paths.linkQuestion, pages.limited { request, _ in linkPage(request) })
        router.add(
            .POST, paths.linkQuestion, bodyLimit: limit,
            pages.limited { request, context in
                try await confirmLink(request, client: context.clientKey, address: context.clientAddress?.description)
            })
        if let linkStart = paths.linkStart {
            router.add(.POST, linkStart, bodyLimit: limit, family.signedInRoute(.providers) { try await startLink($0) })
        }
        router.add(.POST, paths.unlink, bodyLimit: limit, family.signedInRoute(.providers) { try await unlink($0) })
    }

    // MARK: - Start

    /// - Parameters:
    ///   - client: the client's address, for the audit trail.
    ///   - key: the client's key, whose share of the sign-ins waiting for their callback this one counts against.
    func start(_ request: HTTPRequest, client: String?, key: ClientAddressKey) async throws -> HTTPResponse {
        let fields = request.formFields(), paths = family.paths
        guard family.forms.csrfValid(fields, request) else {
            return family.startRefused(.forbidden, request, words: family.csrfMessage)
        }
        var account: String?
        if paths.startNamesSurface {
            guard fields["surface"] == paths.surface.rawValue else {
                return family.startRefused(.badRequest, request, words: SignInMessage.unknownProvider)
            }
            if fields["intent"] == "link" {
                guard let signedIn = try await family.signedInAccount(request) else {
                    return HTMLPage.redirect(to: paths.signInForLink)
                }
                guard try await hasFreshProof(request) else {
                    await refuseLink(signedIn, provider: fields["provider"] ?? "", client: client)
                    return family.startRefused(.forbidden, request, words: SignInMessage.proofNeeded)
                }
                account = signedIn
            }
        }
        return try await begin(
            fields["provider"] ?? "", account: account, returnTo: family.returnPath(fields["next"]), client: key
        ) { status, words in family.startRefused(status, request, words: words) }
    }

    func startLink(_ call: Family.Call) async throws -> HTTPResponse {
        guard try await hasFreshProof(call.request) else {
            await refuseLink(call.account, provider: call.request.formFields()["provider"] ?? "", client: call.client)
            return try await family.notice(.proofNeeded, call)
        }
        return try await begin(
            call.request.formFields()["provider"] ?? "", account: call.account,
            returnTo: family.returnPath(nil)
        ) { _, words in try await family.notice(.linkNotStarted(words), call) }
    }

    /// `signin.link_refused` (reason `proof_needed`): a link asked for on a session whose sign-in is not recent.
    private func refuseLink(_ account: String, provider: String, client: String?) async {
        await record(
            account, .signInLinkRefused, target: provider, client: client,
            details: AuditDetails.json(["reason": "proof_needed"]))
    }

    private func begin(
        _ name: String, account: String?, returnTo: String, client: ClientAddressKey? = nil,
        refused: (HTTPStatus, String) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let flow else { return try await refused(.badRequest, SignInMessage.unknownProvider) }
        do {
            let (url, browser) = try await flow.begin(
                provider: name, surface: family.paths.surface, account: account, returnTo: returnTo,
                client: client?.description)
            // Not a 303: the sign-in page's CSP (form-action 'self') forbids following a form's answer to another site.
            return BrowserPage.moveOn(
                to: url, title: Self.providerTitle,
                setCookies: [
                    family.laxCookie(SignInFlow.browserCookie, browser, maxAge: SignInTransactionStore.lifetime, path: "/")
                ])
        } catch SignInFlow.StartError.unknownProvider, SignInFlow.StartError.returnPathNotLocal {
            return try await refused(.badRequest, SignInMessage.unknownProvider)
        } catch SignInFlow.StartError.provider(let error) {
            await recordRefusal(actor: Self.actor(name), reason: "discovery", detail: "\(error)", client: nil)
            return try await refused(.serviceUnavailable, SignInMessage.unavailable(error))
        } catch SignInFlow.StartError.busy {
            return try await refused(.serviceUnavailable, SignInMessage.busy)
        }
    }

    // MARK: - Callback

    /// A refused callback: the family's `signin_failed` with the refusal's reason, the one sentence, no session.
    public func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
    {
        await recordRefusal(actor: Self.actor(""), reason: refusal.reason, client: client)
        return refusedPage(refusal.words, setCookies: [clear])
    }

    /// A login of this family through every check: ``outcome(_:provider:linkingFor:client:)`` decides.
    public func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse
    {
        let provider = completed.provider
        switch try await outcome(
            completed.identity, provider: provider, linkingFor: completed.transaction.account, client: client)
        {
        case .signIn(let account):
            return try await session(
                account, provider: provider, returnTo: family.returnPath(completed.transaction.returnTo), request,
                client: client, setCookies: [clear])
        case .linked(_, let linked):
            return try await family.linked(linked, request, clear: clear)
        case .confirmPassword(let pending):
            let sealed = try family.forms.seal(pending, purpose: family.paths.pendingPurpose, now: family.now())
            let paths = family.paths
            return HTMLPage.redirect(
                to: paths.linkQuestion,
                setCookies: [
                    clear,
                    family.laxCookie(
                        paths.pendingCookie, sealed, maxAge: PendingProviderLink.lifetime, path: paths.linkQuestion),
                ])
        case .refused(let refusal):
            return refusedPage(
                refusal.map { SignInMessage.words(for: $0, provider: provider) } ?? SignInMessage.failed,
                setCookies: [clear])
        }
    }

    /// What a login through every check comes to (``ProviderLinking`` over this family), with its links, sign-up and
    /// audit records made.
    /// - Parameters:
    ///   - identity: who the provider says signed in.
    ///   - provider: its configuration.
    ///   - linkingFor: the signed-in account that began the login to link; nil for a sign-in.
    ///   - client: the client's address, for the audit trail.
    public func outcome(
        _ identity: ProviderIdentity, provider: SignInProvider, linkingFor: String?, client: String?
    ) async throws -> SignInOutcome {
        guard let identities else { return .refused(nil) }
        let surface = family.paths.surface
        let linkedTo = try await identities.linkedAccount(
            surface: surface, issuer: identity.issuer, subject: identity.subject)
        var candidate: ProviderLinking.Candidate?
        if linkingFor == nil, linkedTo == nil,
            let email = ProviderLinking.verifiedEmail(identity, normalize: family.normalizedEmail)
        {
            candidate = try await family.linkCandidate(email: email)
        }
        switch ProviderLinking.decide(
            identity: identity, provider: provider, linkingFor: linkingFor, linkedTo: linkedTo, candidate: candidate,
            normalize: family.normalizedEmail)
        {
        case .signIn:
            // Recorded as a use now; nil when it was unlinked since it was read.
            guard
                let account = try await identities.signIn(
                    surface: surface, issuer: identity.issuer, subject: identity.subject)
            else { return .refused(nil) }
            return .signIn(account)
        case .link(let account):
            return .linked(account, try await link(identity, provider: provider, account: account, how: "settings", client))
        case .alreadyLinked:
            return .linked(linkingFor ?? "", .alreadyLinked)
        case .linkByTrustedEmail(let account):
            guard try await link(identity, provider: provider, account: account, how: "trusted_email", client)
                != .linkedToAnother
            else { return .refused(nil) }
            return .signIn(account)
        case .confirmPassword(let account, let email):
            let pending = PendingProviderLink(
                provider: provider.name, issuer: identity.issuer, subject: identity.subject, email: email,
                account: account)
            return pending.isSealable ? .confirmPassword(pending) : .refused(nil)
        case .signUp(let email):
            // Another sign-up may take the address meanwhile: nothing is linked into it by email.
            guard let account = try await family.createWithoutPassword(email: email) else { return .refused(nil) }
            let linked = try await identities.link(
                surface: surface, issuer: identity.issuer, subject: identity.subject, provider: provider.name,
                account: account, email: email)
            guard linked == .linked else {
                // Another instance linked the identity first: the account made for it would have no way in.
                try await family.removeWithoutPassword(id: account)
                return .refused(nil)
            }
            await record(
                account, .signInSignedUp, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "subject": identity.subject]))
            return .signIn(account)
        case .refuse(let refusal):
            await recordRefusal(actor: Self.actor(provider.name), reason: refusal.rawValue, client: client)
            return .refused(refusal)
        }
    }

    /// Links `identity` to `account`, records it, and proves the account's email when the provider verified that very
    /// address.
    private func link(
        _ identity: ProviderIdentity, provider: SignInProvider, account: String, how: String, _ client: String?
    ) async throws -> SignInLinkOutcome {
        guard let identities else { return .linkedToAnother }
        let email = ProviderLinking.verifiedEmail(identity, normalize: family.normalizedEmail)
        let outcome = try await identities.link(
            surface: family.paths.surface, issuer: identity.issuer, subject: identity.subject,
            provider: provider.name, account: account, email: email)
        switch outcome {
        case .linked:
            if let email { try await family.markEmailVerified(id: account, email: email) }
            await record(
                account, .signInLinked, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "subject": identity.subject, "how": how]))
        case .alreadyLinked:
            break
        case .linkedToAnother:
            await record(
                account, .signInLinkRefused, target: provider.name, client: client,
                details: AuditDetails.json(["issuer": identity.issuer, "reason": "linked_to_another"]))
        }
        return outcome
    }

    /// A session for `account` (while it may sign in), recorded as the family's sign-in by `provider`.
    public func session(
        _ account: String, provider: SignInProvider, returnTo: String, _ request: HTTPRequest, client: String?,
        setCookies: [String], password: Bool = false
    ) async throws -> HTTPResponse {
        guard
            let session = try await family.startSession(
                account, request, by: .provider(provider, returnTo: returnTo, password: password),
                setCookies: setCookies)
        else { return refusedPage(SignInMessage.failed, setCookies: setCookies) }
        guard session.opened else { return session.response }  // a second factor comes first
        family.countSignIn("success")
        await record(
            account, family.actor.signIn, target: session.auditTarget, client: client,
            details: AuditDetails.json(["method": "provider", "provider": provider.name]))
        return session.response
    }

    // MARK: - The password question

    func linkPage(_ request: HTTPRequest) -> HTTPResponse {
        guard let pending = pending(request) else {
            return BrowserPage.message(.badRequest, Self.providerTitle, SignInMessage.linkExpired)
        }
        return linkForm(.ok, request, pending, error: nil)
    }

    func confirmLink(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws -> HTTPResponse {
        guard let pending = pending(request) else {
            return BrowserPage.message(.badRequest, Self.providerTitle, SignInMessage.linkExpired)
        }
        let fields = request.formFields()
        guard family.forms.csrfValid(fields, request) else {
            return linkForm(.forbidden, request, pending, error: family.csrfMessage)
        }
        guard let provider = flow?.configuration.provider(named: pending.provider) else {
            return BrowserPage.message(.badRequest, Self.providerTitle, SignInMessage.linkExpired)
        }
        switch try await family.checkPassword(
            account: pending.account, email: pending.email, password: fields["password"] ?? "", client: client)
        {
        case .passed:
            let identity = ProviderIdentity(
                issuer: pending.issuer, subject: pending.subject, email: pending.email, emailVerified: true, name: nil)
            let paths = family.paths
            let clear = family.laxCookie(paths.pendingCookie, "", maxAge: 0, path: paths.linkQuestion)
            guard try await link(identity, provider: provider, account: pending.account, how: "password", address)
                != .linkedToAnother
            else { return refusedPage(SignInMessage.failed, setCookies: [clear]) }
            return try await session(
                pending.account, provider: provider, returnTo: family.returnPath(nil), request, client: address,
                setCookies: [clear], password: true)
        case .failed:
            family.countSignIn("refused")
            await record(
                pending.account, .signInLinkRefused, target: provider.name, client: address,
                details: AuditDetails.json(["issuer": pending.issuer, "reason": "wrong_password"]))
            return linkForm(.unauthorized, request, pending, error: SignInMessage.wrongPassword)
        case .slowed(let seconds):
            family.countSignIn("slowed")
            var response = linkForm(
                .tooManyRequests, request, pending, error: SignInMessage.signInSlowed(retryAfter: seconds))
            response.headers.setRetryAfter(seconds: Int(seconds))
            return response
        }
    }

    private func pending(_ request: HTTPRequest) -> PendingProviderLink? {
        request.cookie(family.paths.pendingCookie).flatMap {
            family.forms.pendingLink($0, purpose: family.paths.pendingPurpose, now: family.now())
        }
    }

    private func linkForm(_ status: HTTPStatus, _ request: HTTPRequest, _ pending: PendingProviderLink, error: String?)
        -> HTTPResponse
    {
        family.forms.linkQuestionPage(
            status, request, pending, action: family.paths.linkQuestion, account: family.paths.accountWords,
            providerName: flow?.configuration.provider(named: pending.provider)?.displayName ?? pending.provider,
            error: error)
    }

    // MARK: - Unlink

    func unlink(_ call: Family.Call) async throws -> HTTPResponse {
        guard let identities else { return try await family.notice(.notLinked, call) }
        let fields = call.request.formFields()
        let issuer = fields["issuer"] ?? "", subject = fields["subject"] ?? ""
        let identity: SignInIdentity
        // The last way in (no password, no passkey that signs in, no other linked provider) stays.
        switch try await ways(of: call.account).unlinking(issuer: issuer, subject: subject) {
        case .notLinked: return try await family.notice(.notLinked, call)
        case .lastWay: return try await family.notice(.lastWay, call)
        case .allowed(let linked): identity = linked
        }
        if try await identities.unlink(
            surface: family.paths.surface, account: call.account, issuer: issuer, subject: subject)
        {
            await record(
                call.account, .signInUnlinked, target: identity.provider, client: call.client,
                details: AuditDetails.json(["issuer": issuer, "subject": subject]))
        }
        return try await family.notice(.unlinked, call)
    }

    // MARK: - Shared

    private func refusedPage(_ message: String, setCookies: [String]) -> HTTPResponse {
        BrowserPage.signInRefused(
            .forbidden, title: Self.providerTitle, message, backTo: family.paths.signIn, setCookies: setCookies)
    }

    /// The refusal's actor: `oidc:<provider>`, or `oidc` when the callback named none.
    static func actor(_ provider: String) -> String { provider.isEmpty ? "oidc" : "oidc:" + provider }
}

/// What a provider's login through every check comes to.
public enum SignInOutcome: Equatable, Sendable {
    /// A session for this account.
    case signIn(String)
    /// A link asked for from "Sign-in methods" of this account.
    case linked(String, SignInLinkOutcome)
    /// No session: the password question.
    case confirmPassword(PendingProviderLink)
    /// Nothing; the reason to tell, or nil for the one generic sentence.
    case refused(ProviderLinking.Refusal?)
}
