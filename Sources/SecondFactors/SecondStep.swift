import Audit
import BrowserPages
import ClientAddress
import HTTP1
import ServerKit
import SignInMethods

/// The second step of a family's sign-in (issue 88 item 3), written once and mounted for each family
/// (``SecondFactorFamily``: owners at `/owner/sign-in/second-step` after a password or a provider, Pro users at
/// `/inbox/sign-in/second-step` after a password): one whose second factor is on types a code from their app or a
/// recovery code before their session opens; one the policy requires a factor of and who has none sets one up there
/// first, confirms it with a first code, and is shown their recovery codes once.
///
/// The first factor rides a cookie (``SecondFactorPaths/cookie``, path the second step's, five minutes) sealed with
/// the family's key (``SecondStepCookie``). Every code is checked under the sign-in backoff
/// (``SecondFactorPaths/throttleNamespace``, by the email and the client's address; a password that passed does not
/// reset it); a code is accepted once. On the trail: the sign-in with the second factor used, a recovery code used, a
/// factor set up at sign-in turned on, and each refusal (never the code typed).
public struct SecondStep<Family: SecondFactorFamily>: Sendable {
    let family: Family

    /// - Parameter family: whose sign-ins, with its store, cookie key, frame and sessions.
    public init(_ family: Family) {
        self.family = family
    }

    private var paths: SecondFactorPaths { family.secondFactorPaths }

    /// Adds `GET|POST <second step>` (nothing without the family's second factors).
    public func register(into router: inout ContextRouter) {
        guard family.secondFactorStore != nil else { return }
        router.add(.GET, paths.secondStep, family.pages.limited { request, _ in try await page(request) })
        router.add(
            .POST, paths.secondStep, bodyLimit: family.bodyLimit,
            family.pages.limited { request, context in
                try await post(request, client: context.clientKey, address: context.clientAddress?.description)
            })
    }

    /// The 303 to the second step of `pending`, its first factor sealed in the cookie (with `setCookies`).
    /// - Throws: sealing errors.
    public func redirect(_ pending: Family.Pending, setCookies: [String] = []) throws -> HTTPResponse {
        let sealed = try SecondStepCookie.seal(
            pending.cookieFields, purpose: paths.purpose, browserKey: family.secondStepKey, now: family.now())
        return HTMLPage.redirect(
            to: paths.secondStep,
            setCookies: setCookies + [
                family.forms.cookie(paths.cookie, sealed, maxAge: SecondStepCookie.lifetime, path: paths.secondStep)
            ])
    }

    /// The sign-in pending in `request`'s cookie, with the family's second factors; nil when there is none (no
    /// cookie, a broken or expired one, its person gone).
    private func pending(_ request: HTTPRequest) async throws -> (Family.Pending, SecondFactorStore)? {
        guard let factors = family.secondFactorStore, let cookie = request.cookie(paths.cookie),
            let fields = SecondStepCookie.open(
                cookie, count: Family.Pending.fieldCount, purpose: paths.purpose, browserKey: family.secondStepKey,
                now: family.now()),
            let pending = try await family.pendingSecondStep(fields)
        else { return nil }
        return (pending, factors)
    }

    func page(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let (pending, factors) = try await pending(request) else {
            return HTMLPage.redirect(to: family.paths.signIn)
        }
        return try await form(.ok, request, pending, factors, error: nil)
    }

    /// The code form, or (a second factor required and none on) the setup with a secret waiting for its first code.
    private func form(
        _ status: HTTPStatus, _ request: HTTPRequest, _ pending: Family.Pending, _ factors: SecondFactorStore,
        error: String?
    ) async throws -> HTTPResponse {
        let (token, setCookie) = family.forms.csrf(for: request)
        guard
            let main = try await TwoStepParts.secondStep(
                factors, holder: pending.account, uri: { family.otpAuthURI(email: pending.email, $0) },
                action: paths.secondStep, csrfToken: token, error: error, startOver: family.paths.signIn)
        else { return BrowserPage.message(.conflict, TwoStepParts.title, TwoStepParts.startOver) }
        return HTMLPage.response(
            status, family.secondStepDocument(title: TwoStepParts.title, main: main),
            setCookies: setCookie.map { [$0] } ?? [])
    }

    func post(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws -> HTTPResponse {
        guard let (pending, factors) = try await pending(request) else {
            return HTMLPage.redirect(to: family.paths.signIn)
        }
        let fields = request.formFields()
        guard family.forms.csrfValid(fields, request) else {
            return try await form(.forbidden, request, pending, factors, error: family.csrfMessage)
        }
        let keys = SignInThrottle.keys(name: pending.email, client: client, namespace: paths.throttleNamespace)
        let attempt = try await factors.secondStep(
            holder: pending.account, code: fields["code"] ?? "", throttle: family.passkeyThrottle, keys: keys,
            now: family.now())
        let used: SecondFactorStore.Check, recoveryCodes: [String]?
        switch attempt {
        case .slowed(let retryAfter):
            await refused(pending, attempt, client: address)
            var answer = try await form(
                .tooManyRequests, request, pending, factors, error: family.slowDown(retryAfter))
            answer.headers.setRetryAfter(seconds: Int(retryAfter))
            return answer
        case .refused:
            await refused(pending, attempt, client: address)
            return try await form(.unauthorized, request, pending, factors, error: TwoStepParts.wrongCode)
        case .passed(let check, let codes):
            (used, recoveryCodes) = (check, codes)
        }
        family.countSignIn("success")
        let clear = family.forms.cookie(paths.cookie, "", maxAge: 0, path: paths.secondStep)
        guard let session = try await family.openSession(pending, factorJustSetUp: recoveryCodes != nil, request) else {
            return HTMLPage.redirect(to: family.paths.signIn, setCookies: [clear])
        }
        let cookies = session + [clear]
        let actor = family.actor
        await family.record(
            pending.account, actor.signIn, target: pending.email, client: address,
            details: AuditDetails.json(["method": pending.firstFactor, "second_factor": attempt.usedName]))
        if used == .recoveryCode {
            await family.record(pending.account, actor.recoveryCodeUsed, target: pending.email, client: address)
        }
        guard let recoveryCodes else { return HTMLPage.redirect(to: pending.next, setCookies: cookies) }
        // Set up at sign-in: on now, and its recovery codes shown this once.
        await family.record(pending.account, actor.secondFactorOn, target: pending.email, client: address)
        return HTMLPage.response(
            .ok,
            family.secondStepDocument(
                title: TwoStepParts.title, main: TwoStepParts.recoveryCodes(recoveryCodes, next: pending.next)),
            setCookies: cookies)
    }

    /// A refused code, counted and on the trail with its reason (``SecondStepAttempt/refusalReason``); never the code.
    private func refused(_ pending: Family.Pending, _ attempt: SecondStepAttempt, client: String?) async {
        let reason = attempt.refusalReason ?? "wrong_code"
        family.countSignIn(reason == "slowed" ? "slowed" : "refused")
        let kind = family.actor.kind
        let action = family.actor.signInFailed
        await family.audit.record {
            AuditEvent(
                time: $0, actorKind: kind, actorID: pending.refusalActor, ownerID: nil, action: action,
                target: pending.email, clientAddress: client, details: AuditDetails.json(["reason": reason]))
        }
    }
}
