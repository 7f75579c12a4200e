import Audit
import BrowserPages
import HTTP1
import SecondFactors
import ServerKit
import SignInProviders
import TOTP

/// The routes of `/owner/two-step` (issue 88 item 3): an owner's second factor, seen, set up, confirmed, its recovery
/// codes renewed, turned off. Every change needs a session whose sign-in is recent (``OwnerService/freshlyProven(_:)``,
/// the rule that makes an app password, `POSTERN_OWNER_FRESH_PROOF_SECONDS`): a stolen session cookie
/// alone neither reads a secret nor turns the factor off. Setting up shows the secret and its `otpauth://` URI in the
/// answer to the post (`no-store`), never in a URL; a first code turns it on and the ten recovery codes are shown
/// that once. With ``OwnersConfiguration/secondFactor`` `off` the pages are not found.
///
/// Form fields: `code` on `/owner/two-step/confirm`, and the hidden `csrf_token` on every post.
public struct OwnerTwoStepPages: Sendable {
    let service: OwnerService

    /// The page.
    static let path = "/owner/two-step"
    static let title = "Two-step sign-in"

    /// - Parameter service: sign-in, sessions, CSRF and the second factors.
    public init(service: OwnerService) {
        self.service = service
    }

    /// Adds `GET /owner/two-step` and `POST /owner/two-step/setup|confirm|recovery-codes|disable`.
    public func register(into router: inout ContextRouter) {
        guard service.configuration.secondFactor != .off else { return }
        let limit = service.configuration.bodyLimit
        router.add(.GET, Self.path, route { request, _, owner, _ in try await page(request, owner) })
        router.add(.POST, Self.path + "/setup", bodyLimit: limit, route { request, _, owner, _ in
            try await setUp(request, owner, error: nil)
        })
        router.add(.POST, Self.path + "/confirm", bodyLimit: limit, route(confirm))
        router.add(.POST, Self.path + "/recovery-codes", bodyLimit: limit, route(renewCodes))
        router.add(.POST, Self.path + "/disable", bodyLimit: limit, route(disable))
    }

    private func route(_ handler: @escaping OwnerService.OwnerActionHandler) -> ContextRouteHandler {
        service.ownerRoute(page: Self.path, title: Self.title, handler)
    }

    private func fresh(_ request: HTTPRequest) async throws -> Bool {
        try await service.freshlyProven(request)
    }

    /// The page with `main`, its forms given the browser's CSRF token (read once, its cookie set when new).
    private func respond(
        _ request: HTTPRequest, _ owner: Owner, status: HTTPStatus = .ok, _ main: (_ csrfToken: String) -> HTML
    ) -> HTTPResponse {
        let (token, setCookie) = service.browser.csrf(for: request)
        return HTMLPage.response(
            status, OwnerPageShell.document(title: Self.title, main: main(token), owner: owner, csrfToken: token),
            setCookies: setCookie.map { [$0] } ?? [])
    }

    /// Where the owner's second factor stands, and the forms that change it.
    func page(_ request: HTTPRequest, _ owner: Owner, notice: PageNotice? = nil) async throws -> HTTPResponse {
        let state = try await service.secondFactors.state(ownerID: owner.id)
        return respond(request, owner) { token in
            HTML.notice(notice) + TwoStepParts.state(state, path: Self.path, csrfToken: token)
        }
    }

    /// A secret waiting for its first code (the one waiting, or a new one), shown with the form that confirms it.
    private func setUp(_ request: HTTPRequest, _ owner: Owner, error: String?) async throws -> HTTPResponse {
        guard try await fresh(request) else { return try await proofNeeded(request, owner) }
        guard let secret = try await service.secondFactors.store.secretToConfirm(holder: owner.id) else {
            return try await page(request, owner)  // on already
        }
        let uri = service.otpAuthURI(owner, secret)
        return respond(request, owner, status: error == nil ? .ok : .unprocessableEntity) { token in
            TwoStepParts.setUp(uri, action: Self.path + "/confirm", csrfToken: token, error: error)
        }
    }

    private func confirm(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ client: String?) async throws
        -> HTTPResponse
    {
        guard try await fresh(request) else { return try await proofNeeded(request, owner) }
        let code = request.formFields()["code"] ?? ""
        guard let codes = try await service.secondFactors.confirm(ownerID: owner.id, code: code) else {
            return try await setUp(request, owner, error: OwnerMessage.wrongCode)
        }
        await service.audit.owner(owner.id, .ownerSecondFactorOn, target: owner.email, client: client)
        return respond(request, owner) { _ in TwoStepParts.recoveryCodes(codes, next: Self.path) }
    }

    private func renewCodes(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ client: String?)
        async throws -> HTTPResponse
    {
        guard try await fresh(request) else { return try await proofNeeded(request, owner) }
        guard let codes = try await service.secondFactors.regenerateRecoveryCodes(ownerID: owner.id) else {
            return try await page(request, owner)
        }
        await service.audit.owner(owner.id, .ownerRecoveryCodesRenewed, target: owner.email, client: client)
        return respond(request, owner) { _ in TwoStepParts.recoveryCodes(codes, next: Self.path) }
    }

    private func disable(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ client: String?) async throws
        -> HTTPResponse
    {
        guard try await fresh(request) else { return try await proofNeeded(request, owner) }
        if try await service.secondFactors.remove(ownerID: owner.id) {
            await service.audit.owner(owner.id, .ownerSecondFactorOff, target: owner.email, client: client)
        }
        return try await page(request, owner, notice: PageNotice("Two-step sign-in is off.", .success))
    }

    /// A change refused: the session's sign-in is not recent (403, the page with the notice).
    private func proofNeeded(_ request: HTTPRequest, _ owner: Owner) async throws -> HTTPResponse {
        var answer = try await page(request, owner, notice: PageNotice(OwnerMessage.secondFactorProofNeeded, .error))
        answer.status = .forbidden
        return answer
    }
}
