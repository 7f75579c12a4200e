import Audit
import AuthCrypto
import BrowserPages
import ClientAddress
import HTTP1
import SecondFactors
import ServerKit
import SignInMethods
import TOTP

/// The second step of an owner's sign-in (issue 88 item 3): after a password (or a provider, when
/// ``OwnersConfiguration/secondFactor`` says so) an owner whose second factor is on types a code from their app or a
/// recovery code at `/owner/sign-in/second-step` before their session opens; one who must have a second factor and
/// has none sets one up there first, confirms it with a first code, and is shown their recovery codes once.
///
/// Every code is checked under the sign-in backoff (``SignInThrottle``, namespace `owner-second-factor`, by the
/// owner's email and the client's address): a password that passes does not reset it, so knowing the password buys
/// no more guesses at the code. A code is accepted once (``OwnerSecondFactors/check(ownerID:code:)``). The session
/// records how it was earned (``AuthenticationMethods``: the first factor and `otp`).
extension OwnerService {
    /// The sign-in backoff's namespace of second-step codes.
    static let secondStepNamespace = "owner-second-factor"

    /// Adds `GET|POST /owner/sign-in/second-step`.
    func registerSecondStep(into router: inout ContextRouter) {
        let path = OwnerSecondStepPending.path
        router.add(.GET, path, pages.limited { [self] request, _ in try await secondStepPage(request) })
        router.add(
            .POST, path, bodyLimit: configuration.bodyLimit,
            pages.limited { [self] request, context in
                try await secondStepPost(
                    request, client: context.clientKey, address: context.clientAddress?.description)
            })
    }

    /// What a sign-in by `methods` (a first factor) of `owner` does next: nil when the session opens now; else the
    /// 303 to the second step, with the pending sign-in sealed in its cookie (and `setCookies`).
    /// - Throws: storage errors.
    func secondStep(
        _ owner: Owner, by methods: AuthenticationMethods, provider: String?, next: String, setCookies: [String] = []
    ) async throws -> HTTPResponse? {
        guard configuration.secondFactor != .off else { return nil }
        let enrolled = try await secondFactors.state(ownerID: owner.id).isOn
        guard configuration.secondFactor.step(after: methods, enrolled: enrolled) != .none else { return nil }
        let pending = OwnerSecondStepPending(ownerID: owner.id, methods: methods, provider: provider, next: next)
        let sealed = try pending.seal(browserKey: browser.key, now: browser.sessions.clock())
        return HTMLPage.redirect(
            to: OwnerSecondStepPending.path,
            setCookies: setCookies + [
                browser.forms.cookie(
                    OwnerSecondStepPending.cookie, sealed, maxAge: OwnerSecondStepPending.lifetime,
                    path: OwnerSecondStepPending.path)
            ])
    }

    private func pendingSignIn(_ request: HTTPRequest) async throws
        -> (pending: OwnerSecondStepPending, owner: Owner)?
    {
        guard let cookie = request.cookie(OwnerSecondStepPending.cookie),
            let pending = OwnerSecondStepPending(
                cookie: cookie, browserKey: browser.key, now: browser.sessions.clock()),
            let owner = try await owners.owner(id: pending.ownerID)
        else { return nil }
        return (pending, owner)
    }

    func secondStepPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let found = try await pendingSignIn(request) else { return HTMLPage.redirect(to: "/owner/sign-in") }
        return try await secondStepForm(.ok, request, found.pending, found.owner, error: nil)
    }

    /// The code form, or (a second factor required and none on) the setup with a secret waiting for its first code.
    private func secondStepForm(
        _ status: HTTPStatus, _ request: HTTPRequest, _ pending: OwnerSecondStepPending, _ owner: Owner,
        error: String?
    ) async throws -> HTTPResponse {
        let (token, setCookie) = browser.csrf(for: request)
        guard
            let main = try await TwoStepParts.secondStep(
                secondFactors.store, holder: owner.id, uri: { otpAuthURI(owner, $0) },
                action: OwnerSecondStepPending.path, csrfToken: token, error: error, startOver: "/owner/sign-in")
        else { return BrowserPage.message(.conflict, "Two-step sign-in", OwnerMessage.secondStepStartOver) }
        return HTMLPage.response(
            status, OwnerPageShell.document(title: "Two-step sign-in", main: main),
            setCookies: setCookie.map { [$0] } ?? [])
    }

    func secondStepPost(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws
        -> HTTPResponse
    {
        guard let (pending, owner) = try await pendingSignIn(request) else {
            return HTMLPage.redirect(to: "/owner/sign-in")
        }
        let fields = request.formFields()
        guard browser.csrfValid(fields, request) else {
            return try await secondStepForm(.forbidden, request, pending, owner, error: OwnerMessage.csrf)
        }
        let code = fields["code"] ?? ""
        let keys = SignInThrottle.keys(name: owner.email, client: client, namespace: Self.secondStepNamespace)
        let now = browser.sessions.clock()
        let attempt = try await secondFactors.store.secondStep(
            holder: owner.id, code: code, throttle: passkeyThrottle, keys: keys, now: now)
        let used: SecondFactorStore.Check, recoveryCodes: [String]?
        switch attempt {
        case .slowed(let retryAfter):
            signIns("slowed")
            await recordSecondStepRefusal(owner, reason: "slowed", client: address)
            var answer = try await secondStepForm(
                .tooManyRequests, request, pending, owner, error: OwnerMessage.slowDown(retryAfter))
            answer.headers.setRetryAfter(seconds: Int(retryAfter))
            return answer
        case .refused:
            signIns("refused")
            await recordSecondStepRefusal(owner, reason: attempt.refusalReason ?? "wrong_code", client: address)
            return try await secondStepForm(.unauthorized, request, pending, owner, error: OwnerMessage.wrongCode)
        case .passed(let check, let codes):
            (used, recoveryCodes) = (check, codes)
        }
        signIns("success")
        let methods = pending.methods.union(.oneTimeCode)
        let clear = browser.forms.cookie(
            OwnerSecondStepPending.cookie, "", maxAge: 0, path: OwnerSecondStepPending.path)
        let cookies = try await openSession(owner, request, provider: pending.provider, methods: methods) + [clear]
        await audit.owner(
            owner.id, .ownerSignIn, target: owner.email, client: address,
            details: AuditDetails.json(["method": pending.methods.contains(.provider) ? "provider" : "password",
                                        "second_factor": attempt.usedName]))
        if used == .recoveryCode {
            await audit.owner(owner.id, .ownerRecoveryCodeUsed, target: owner.email, client: address)
        }
        guard let recoveryCodes else { return HTMLPage.redirect(to: pending.next, setCookies: cookies) }
        // Set up at sign-in: on now, and its recovery codes shown this once.
        await audit.owner(owner.id, .ownerSecondFactorOn, target: owner.email, client: address)
        return HTMLPage.response(
            .ok,
            OwnerPageShell.document(
                title: "Two-step sign-in", main: TwoStepParts.recoveryCodes(recoveryCodes, next: pending.next)),
            setCookies: cookies)
    }

    /// The `otpauth://` URI of `secret` for `owner`: the issuer is this server's host.
    func otpAuthURI(_ owner: Owner, _ secret: [UInt8]) -> OTPAuthURI {
        OTPAuthURI(issuer: issuerName, account: owner.email, secret: secret, totp: secondFactors.totp)
    }

    /// The name authenticator apps show above the code: the public URL's host, or `Postern`.
    var issuerName: String {
        SecondStepCookie.issuer(publicURL: configuration.publicURL)
    }

    /// A refused second step on the operator's trail, with the owner as the actor; never the code typed.
    private func recordSecondStepRefusal(_ owner: Owner, reason: String, client: String?) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .owner, actorID: owner.email, ownerID: nil, action: .ownerSignInFailed,
                target: owner.email, clientAddress: client, details: AuditDetails.json(["reason": reason]))
        }
    }
}
