import Audit
import BrowserPages
import ClientAddress
import HTTP1
import SecondFactors
import ServerKit
import SignInMethods
import TOTP

/// The second step of a Pro user's password sign-in to the web inbox (issue 88 item 3), the owners' rules on the Pro
/// surface (the store, the backoff's check and the page parts are ``SecondFactors``'): after their password a Pro
/// user whose second factor is on types a code from their app or a recovery code at `/inbox/sign-in/second-step`
/// before their session opens; with `POSTERN_PRO_SECOND_FACTOR=required-for-passwords` one who has none sets one up
/// there first, confirms it with a first code, and is shown their recovery codes once.
///
/// The first factor rides a cookie (`postern_inbox_second_step`, path the second step's, five minutes) sealed with the
/// web inbox's own key: the Pro user, their email, what the session will rest on (their token epoch as the password
/// found it, so a password changed meanwhile ends the session at once) and where it goes next. Every code is checked
/// under the sign-in backoff (namespace `inbox-second-factor`, by the email and the client's address); a code is
/// accepted once. On the operator's trail: `pro.signin` with the second factor used, `pro.recovery_code_used`,
/// `pro.mfa_enabled` for a setup at sign-in, and each refusal as `pro.signin_failed` (never the code typed).
extension WebInboxService {
    /// The second step's path.
    public static let secondStepPath = "/inbox/sign-in/second-step"
    /// The cookie of a pending second step.
    static let secondStepCookie = "postern_inbox_second_step"
    /// The sign-in backoff's namespace of Pro users' second-step codes.
    static let secondStepNamespace = "inbox-second-factor"
    private static let secondStepPurpose = "pro second step"

    /// Whether Pro users have second factors (``ProTwoStepPages`` is served): the dashboard links to it.
    public var offersTwoStep: Bool { secondFactors != nil }

    /// Adds `GET|POST /inbox/sign-in/second-step` (when Pro users have second factors).
    func registerSecondStep(into router: inout ContextRouter) {
        guard secondFactors != nil else { return }
        router.add(
            .GET, Self.secondStepPath, pages.limited { [self] request, _ in try await secondStepPage(request) })
        router.add(
            .POST, Self.secondStepPath, bodyLimit: configuration.bodyLimit,
            pages.limited { [self] request, context in
                try await secondStepPost(
                    request, client: context.clientKey, address: context.clientAddress?.description)
            })
    }

    /// What a password sign-in of Pro user `proUserID` does next: nil when the session opens now; else the 303 to the
    /// second step, with the pending sign-in sealed in its cookie (and `setCookies`).
    /// - Throws: storage errors.
    func secondStep(proUserID: String, binding: WebInboxSessionBinding, next: String, setCookies: [String] = [])
        async throws -> HTTPResponse?
    {
        guard let secondFactors,
            let email = try await signIns?.access(.proUser(id: proUserID), resting: binding)?.label, !email.isEmpty
        else { return nil }
        let enrolled = try await secondFactors.state(holder: proUserID).isOn
        guard configuration.proPasswordAsksSecondStep(enrolled: enrolled) else { return nil }
        let sealed = try SecondStepCookie.seal(
            [proUserID, email, binding.encoded, next], purpose: Self.secondStepPurpose, browserKey: secondStepKey,
            now: clock())
        return HTMLPage.redirect(
            to: Self.secondStepPath,
            setCookies: setCookies + [
                forms.cookie(
                    Self.secondStepCookie, sealed, maxAge: SecondStepCookie.lifetime, path: Self.secondStepPath)
            ])
    }

    /// A pending second step: who, their email, what the session rests on, where it goes next.
    private struct PendingSecondStep {
        var proUserID: String
        var email: String
        var binding: WebInboxSessionBinding
        var next: String
    }

    private func pendingSecondStep(_ request: HTTPRequest) -> PendingSecondStep? {
        guard let cookie = request.cookie(Self.secondStepCookie),
            let parts = SecondStepCookie.open(
                cookie, count: 4, purpose: Self.secondStepPurpose, browserKey: secondStepKey, now: clock()),
            let binding = WebInboxSessionBinding(encoded: parts[2])
        else { return nil }
        let next = parts[3] == Self.dashboardPath ? Self.dashboardPath : "/inbox"
        return PendingSecondStep(proUserID: parts[0], email: parts[1], binding: binding, next: next)
    }

    func secondStepPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let pending = pendingSecondStep(request), let factors = secondFactors else {
            return HTMLPage.redirect(to: "/inbox/sign-in")
        }
        return try await secondStepForm(.ok, request, pending, factors, error: nil)
    }

    /// The code form, or (a second factor required and none on) the setup with a secret waiting for its first code.
    private func secondStepForm(
        _ status: HTTPStatus, _ request: HTTPRequest, _ pending: PendingSecondStep, _ factors: SecondFactorStore,
        error: String?
    ) async throws -> HTTPResponse {
        let (token, setCookie) = forms.csrf(for: request)
        guard
            let main = try await TwoStepParts.secondStep(
                factors, holder: pending.proUserID, uri: { otpAuthURI(email: pending.email, $0, factors) },
                action: Self.secondStepPath, csrfToken: token, error: error, startOver: "/inbox/sign-in")
        else { return BrowserPage.message(.conflict, TwoStepParts.title, TwoStepParts.startOver) }
        return HTMLPage.response(
            status, BrowserPage.document(title: TwoStepParts.title, main: main),
            setCookies: setCookie.map { [$0] } ?? [])
    }

    func secondStepPost(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws
        -> HTTPResponse
    {
        guard let pending = pendingSecondStep(request), let factors = secondFactors else {
            return HTMLPage.redirect(to: "/inbox/sign-in")
        }
        let fields = request.formFields()
        guard forms.csrfValid(fields, request) else {
            return try await secondStepForm(.forbidden, request, pending, factors, error: WebInboxPage.csrfMessage)
        }
        let keys = SignInThrottle.keys(name: pending.email, client: client, namespace: Self.secondStepNamespace)
        let attempt = try await factors.secondStep(
            holder: pending.proUserID, code: fields["code"] ?? "", throttle: throttle, keys: keys, now: clock())
        let used: SecondFactorStore.Check, recoveryCodes: [String]?
        switch attempt {
        case .slowed(let retryAfter):
            await recordPro(pending, .proSignInFailed, client: address, details: ["reason": "slowed"])
            var answer = try await secondStepForm(
                .tooManyRequests, request, pending, factors,
                error: "Too many failed sign-ins. Try again in \(retryAfter) seconds.")
            answer.headers.setRetryAfter(seconds: Int(retryAfter))
            return answer
        case .refused:
            await recordPro(
                pending, .proSignInFailed, client: address, details: ["reason": attempt.refusalReason ?? "wrong_code"])
            return try await secondStepForm(.unauthorized, request, pending, factors, error: TwoStepParts.wrongCode)
        case .passed(let check, let codes):
            (used, recoveryCodes) = (check, codes)
        }
        let clear = forms.cookie(Self.secondStepCookie, "", maxAge: 0, path: Self.secondStepPath)
        let token = try await openSession(.proUser(id: pending.proUserID), pending.binding, request)
        let cookies = sessionCookies(token) + [clear]
        await recordPro(
            pending, .proSignIn, client: address, details: ["method": "password", "second_factor": attempt.usedName])
        if used == .recoveryCode { await recordPro(pending, .proRecoveryCodeUsed, client: address) }
        guard let recoveryCodes else { return HTMLPage.redirect(to: pending.next, setCookies: cookies) }
        // Set up at sign-in: on now, and its recovery codes shown this once.
        await recordPro(pending, .proSecondFactorOn, client: address)
        return HTMLPage.response(
            .ok,
            BrowserPage.document(
                title: TwoStepParts.title, main: TwoStepParts.recoveryCodes(recoveryCodes, next: pending.next)),
            setCookies: cookies)
    }

    /// The `otpauth://` URI of `secret` for the Pro user with `email`: the issuer is this server's host.
    func otpAuthURI(email: String, _ secret: [UInt8], _ factors: SecondFactorStore) -> OTPAuthURI {
        OTPAuthURI(
            issuer: SecondStepCookie.issuer(publicURL: configuration.publicURL), account: email, secret: secret,
            totp: factors.totp)
    }

    private func recordPro(
        _ pending: PendingSecondStep, _ action: AuditAction, client: String?, details: KeyValuePairs<String, String> = [:]
    ) async {
        await recordPro(pending.proUserID, action, target: pending.email, client: client, details: details)
    }

    /// An event of Pro user `proUserID`'s own doing on the operator's trail (actor the Pro user).
    func recordPro(
        _ proUserID: String, _ action: AuditAction, target: String, client: String?, details: KeyValuePairs<String, String> = [:]
    ) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: proUserID, ownerID: nil, action: action, target: target,
                clientAddress: client, details: details.isEmpty ? nil : AuditDetails.json(details))
        }
    }
}
