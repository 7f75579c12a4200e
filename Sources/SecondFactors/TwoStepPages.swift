import BrowserPages
import HTTP1
import ServerKit
import SignInMethods
import TOTP

/// The routes of a family's two-step page (issue 88 item 3), written once and mounted for each family
/// (``SecondFactorFamily``: owners' `/owner/two-step`, Pro users' `/inbox/two-step`): the person's second factor seen,
/// set up, confirmed, its recovery codes renewed, turned off. In the family's signed-in frame and session
/// (``SignInFamily/signedInRoute(_:_:)`` of ``SignInArea/twoStep``: every post CSRF-checked). Every change needs a
/// session whose sign-in is recent (``SecondFactorFamily/mayChangeSecondFactor(_:)``,
/// `POSTERN_OWNER_FRESH_PROOF_SECONDS`): a stolen session cookie alone neither reads a secret nor turns the factor off.
/// Setting up shows the secret, its `otpauth://` URI and QR code in the answer to the post (`no-store`), never in a
/// URL; a first code turns it on and the ten recovery codes are shown that once. Each change is on the trail
/// (`owner.mfa_enabled`, `pro.mfa_disabled`, `….recovery_codes_renewed`). Without the family's second factors the
/// pages are not found.
///
/// Form fields: `code` on `<page>/confirm`, and the hidden `csrf_token` on every post.
public struct TwoStepPages<Family: SecondFactorFamily>: Sendable {
    let family: Family

    /// - Parameter family: whose pages, with its store, frame and trail.
    public init(_ family: Family) {
        self.family = family
    }

    private var path: String { family.secondFactorPaths.twoStep }

    /// Adds `GET <page>` and `POST <page>/setup|confirm|recovery-codes|disable` (nothing without the family's second
    /// factors).
    public func register(into router: inout ContextRouter) {
        guard let factors = family.secondFactorStore else { return }
        func route(_ handler: @escaping @Sendable (Family.Call) async throws -> HTTPResponse) -> ContextRouteHandler {
            family.signedInRoute(.twoStep, handler)
        }
        let limit = family.bodyLimit
        router.add(.GET, path, route { call in try await page(call, factors) })
        router.add(.POST, path + "/setup", bodyLimit: limit, route { call in try await setUp(call, factors, error: nil) })
        router.add(.POST, path + "/confirm", bodyLimit: limit, route { call in try await confirm(call, factors) })
        router.add(.POST, path + "/recovery-codes", bodyLimit: limit, route { call in try await renewCodes(call, factors) })
        router.add(.POST, path + "/disable", bodyLimit: limit, route { call in try await disable(call, factors) })
    }

    /// Where the person's second factor stands, and the forms that change it.
    func page(_ call: Family.Call, _ factors: SecondFactorStore, notice: PageNotice? = nil) async throws
        -> HTTPResponse
    {
        let state = try await factors.state(holder: call.account)
        return family.twoStepPage(call, status: .ok) { token in
            HTML.notice(notice) + TwoStepParts.state(state, path: path, csrfToken: token)
        }
    }

    /// A secret waiting for its first code (the one waiting, or a new one), shown with the form that confirms it.
    private func setUp(_ call: Family.Call, _ factors: SecondFactorStore, error: String?) async throws
        -> HTTPResponse
    {
        guard try await family.mayChangeSecondFactor(call) else { return try await proofNeeded(call, factors) }
        guard let secret = try await factors.secretToConfirm(holder: call.account) else {
            return try await page(call, factors)  // on already
        }
        let uri = family.otpAuthURI(email: call.label, secret)
        return family.twoStepPage(call, status: error == nil ? .ok : .unprocessableEntity) { token in
            TwoStepParts.setUp(uri, action: path + "/confirm", csrfToken: token, error: error)
        }
    }

    private func confirm(_ call: Family.Call, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        guard try await family.mayChangeSecondFactor(call) else { return try await proofNeeded(call, factors) }
        let code = call.request.formFields()["code"] ?? ""
        // On: the person's other sessions end, this one stays (SecondFactorStore.confirm).
        guard let codes = try await factors.confirm(holder: call.account, code: code, keeping: family.sessionToKeep(call))
        else {
            return try await setUp(call, factors, error: TwoStepParts.wrongCode)
        }
        await family.record(call.account, family.actor.secondFactorOn, target: call.label, client: call.client)
        return recoveryCodes(codes, call)
    }

    private func renewCodes(_ call: Family.Call, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        guard try await family.mayChangeSecondFactor(call) else { return try await proofNeeded(call, factors) }
        guard let codes = try await factors.regenerateRecoveryCodes(holder: call.account) else {
            return try await page(call, factors)
        }
        await family.record(call.account, family.actor.recoveryCodesRenewed, target: call.label, client: call.client)
        return recoveryCodes(codes, call)
    }

    private func disable(_ call: Family.Call, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        guard try await family.mayChangeSecondFactor(call) else { return try await proofNeeded(call, factors) }
        if try await factors.remove(holder: call.account) {
            await family.record(call.account, family.actor.secondFactorOff, target: call.label, client: call.client)
        }
        return try await page(call, factors, notice: PageNotice("Two-step sign-in is off.", .success))
    }

    /// New recovery codes, shown this once, with the way back to the page.
    private func recoveryCodes(_ codes: [String], _ call: Family.Call) -> HTTPResponse {
        family.twoStepPage(call, status: .ok) { _ in TwoStepParts.recoveryCodes(codes, next: path) }
    }

    /// A change refused: the session's sign-in is not recent (403, the page with the notice).
    private func proofNeeded(_ call: Family.Call, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        var answer = try await page(call, factors, notice: PageNotice(TwoStepParts.proofNeeded, .error))
        answer.status = .forbidden
        return answer
    }
}
