import HTTP1
import SecondFactors
import ServerKit

/// The second step of a Pro user's password sign-in to the web inbox (issue 88 item 3; ``SecondStep`` mounted for Pro
/// users through ``ProSignInFamily``): after their password a Pro user whose second factor is on types a code from
/// their app or a recovery code at `/inbox/sign-in/second-step` before their session opens; with
/// `POSTERN_PRO_SECOND_FACTOR=required-for-passwords` one who has none sets one up there first. Codes are checked
/// under the sign-in backoff (namespace `inbox-second-factor`, by the email and the client's address). On the
/// operator's trail: `pro.signin` with the second factor used, `pro.recovery_code_used`, `pro.mfa_enabled` for a setup
/// at sign-in, and each refusal as `pro.signin_failed` (never the code typed).
extension WebInboxService {
    /// The second step's path.
    public static let secondStepPath = SecondFactorPaths.proUsers.secondStep

    /// Whether Pro users have second factors (``ProTwoStepPages`` is served): the dashboard links to it.
    public var offersTwoStep: Bool { secondFactors != nil }

    /// The Pro users' family as their second factors serve it (no provider links are asked of it).
    private var secondFactorFamily: ProSignInFamily { ProSignInFamily(inbox: self, accounts: nil) }

    /// Adds `GET|POST /inbox/sign-in/second-step` (when Pro users have second factors).
    func registerSecondStep(into router: inout ContextRouter) {
        SecondStep(secondFactorFamily).register(into: &router)
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
        let pending = ProSecondStepPending(proUserID: proUserID, email: email, binding: binding, next: next)
        return try SecondStep(secondFactorFamily).redirect(pending, setCookies: setCookies)
    }
}
