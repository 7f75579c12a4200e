import Audit
import HTTP1
import SecondFactors
import ServerKit

/// The routes of `/inbox/two-step` (issue 88 item 3): a Pro user's second factor, seen, set up, confirmed, its recovery
/// codes renewed, turned off; the owners' `/owner/two-step` mounted on the Pro surface (the store and the parts are
/// ``SecondFactors``'). In the web inbox's frame and session (``WebInboxService/proUserRoute(_:)``: the same 404 for
/// anyone but an active Pro user, every post CSRF-checked). Every change needs a session whose sign-in is recent
/// and not a pasted `tm_pro_` token's (``WebInboxService/freshlySignedIn(_:)``, `POSTERN_OWNER_FRESH_PROOF_SECONDS`):
/// a stolen session cookie or a leaked token alone neither reads a secret nor turns the factor off. Setting up shows the secret, its `otpauth://` URI and QR code in the answer
/// to the post, never in a URL; a first code turns it on and the ten recovery codes are shown that once. With
/// `POSTERN_PRO_SECOND_FACTOR=off` the pages are not found. Each change is on the operator's trail (`pro.mfa_enabled`,
/// `pro.mfa_disabled`, `pro.recovery_codes_renewed`).
///
/// Form fields: `code` on `/inbox/two-step/confirm`, and the hidden `csrf_token` on every post.
public struct ProTwoStepPages: Sendable {
    let inbox: WebInboxService

    /// The page.
    public static let path = "/inbox/two-step"

    /// - Parameter inbox: the web inbox whose sessions, frame and Pro users' second factors the pages use.
    public init(inbox: WebInboxService) {
        self.inbox = inbox
    }

    /// Adds `GET /inbox/two-step` and `POST /inbox/two-step/setup|confirm|recovery-codes|disable`.
    public func register(into router: inout ContextRouter) {
        guard let factors = inbox.secondFactors else { return }
        let limit = inbox.configuration.bodyLimit
        router.add(.GET, Self.path, inbox.proUserRoute { call in try await page(call, factors) })
        router.add(
            .POST, Self.path + "/setup", bodyLimit: limit,
            inbox.proUserRoute { call in try await setUp(call, factors, error: nil) })
        router.add(
            .POST, Self.path + "/confirm", bodyLimit: limit, inbox.proUserRoute { call in try await confirm(call, factors) })
        router.add(
            .POST, Self.path + "/recovery-codes", bodyLimit: limit,
            inbox.proUserRoute { call in try await renewCodes(call, factors) })
        router.add(
            .POST, Self.path + "/disable", bodyLimit: limit, inbox.proUserRoute { call in try await disable(call, factors) })
    }

    /// The page with `main` in the web inbox's frame (`no-store`, as every page).
    private func respond(_ call: WebInboxProUserCall, status: HTTPStatus = .ok, _ main: HTML) -> HTTPResponse {
        HTMLPage.response(status, call.document(TwoStepParts.title, main: main, css: ""))
    }

    /// Where the user's second factor stands, and the forms that change it.
    func page(_ call: WebInboxProUserCall, _ factors: SecondFactorStore, notice: PageNotice? = nil) async throws
        -> HTTPResponse
    {
        let state = try await factors.state(holder: call.proUserID)
        return respond(call, HTML.notice(notice) + TwoStepParts.state(state, path: Self.path, csrfToken: call.csrfToken))
    }

    /// A secret waiting for its first code (the one waiting, or a new one), shown with the form that confirms it.
    private func setUp(_ call: WebInboxProUserCall, _ factors: SecondFactorStore, error: String?) async throws
        -> HTTPResponse
    {
        guard try await inbox.freshlySignedIn(call) else { return try await proofNeeded(call, factors) }
        guard let secret = try await factors.secretToConfirm(holder: call.proUserID) else {
            return try await page(call, factors)  // on already
        }
        let uri = inbox.otpAuthURI(email: call.label, secret, factors)
        return respond(
            call, status: error == nil ? .ok : .unprocessableEntity,
            TwoStepParts.setUp(uri, action: Self.path + "/confirm", csrfToken: call.csrfToken, error: error))
    }

    private func confirm(_ call: WebInboxProUserCall, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        guard try await inbox.freshlySignedIn(call) else { return try await proofNeeded(call, factors) }
        let code = call.request.formFields()["code"] ?? ""
        guard let codes = try await factors.confirm(holder: call.proUserID, code: code) else {
            return try await setUp(call, factors, error: TwoStepParts.wrongCode)
        }
        await inbox.recordPro(call.proUserID, .proSecondFactorOn, target: call.label, client: call.client)
        return respond(call, TwoStepParts.recoveryCodes(codes, next: Self.path))
    }

    private func renewCodes(_ call: WebInboxProUserCall, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        guard try await inbox.freshlySignedIn(call) else { return try await proofNeeded(call, factors) }
        guard let codes = try await factors.regenerateRecoveryCodes(holder: call.proUserID) else {
            return try await page(call, factors)
        }
        await inbox.recordPro(call.proUserID, .proRecoveryCodesRenewed, target: call.label, client: call.client)
        return respond(call, TwoStepParts.recoveryCodes(codes, next: Self.path))
    }

    private func disable(_ call: WebInboxProUserCall, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        guard try await inbox.freshlySignedIn(call) else { return try await proofNeeded(call, factors) }
        if try await factors.remove(holder: call.proUserID) {
            await inbox.recordPro(call.proUserID, .proSecondFactorOff, target: call.label, client: call.client)
        }
        return try await page(call, factors, notice: PageNotice("Two-step sign-in is off.", .success))
    }

    /// A change refused: the session's sign-in is not recent (403, the page with the notice and a link to sign in
    /// again).
    private func proofNeeded(_ call: WebInboxProUserCall, _ factors: SecondFactorStore) async throws -> HTTPResponse {
        var answer = try await page(call, factors, notice: PageNotice(TwoStepParts.proofNeeded, .error))
        answer.status = .forbidden
        return answer
    }
}
