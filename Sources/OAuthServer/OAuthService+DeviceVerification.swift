import Audit
import BrowserPages
import HTTP1
import OAuthGrants
import Owners
import ServerKit

extension OAuthService {
    /// Adds the verification page of the device flow (RFC 8628 section 3.3) to the owners' surface: `GET
    /// /owner/device` (the code form, filled in from `?user_code=`), `POST /owner/device` (the code entered: the
    /// consent page) and `POST /owner/device/consent` (the owner's answer).
    func registerDeviceVerification(into router: inout ContextRouter) {
        let limit = configuration.bodyLimit
        router.add(
            .GET, "/owner/device",
            .deferred { [self] request, context, _ in
                await pageMiddleware(context) { try await deviceForm(request) }
            })
        router.add(
            .POST, "/owner/device", bodyLimit: limit,
            .deferred { [self] request, context, _ in
                await pageMiddleware(context) {
                    try await deviceEntry(request, from: context.clientAddress?.description)
                }
            })
        router.add(
            .POST, "/owner/device/consent", bodyLimit: limit,
            .deferred { [self] request, context, _ in
                await pageMiddleware(context) {
                    try await deviceAnswer(request, from: context.clientAddress?.description)
                }
            })
    }

    /// `GET /owner/device[?user_code=…]`: a browser without an owner session signs in (any of the owner's ways in)
    /// and comes back; then the code form, filled in when the link carried a code. The code is not looked up here:
    /// a link must neither spend the owner's budget of wrong codes nor answer whether a code is live, and the owner
    /// confirms the code the device shows (RFC 8628 section 5.4).
    func deviceForm(_ request: HTTPRequest) async throws -> HTTPResponse {
        let code = request.queryItem("user_code").flatMap(OAuthUserCode.normalised)
        guard let (owner, _) = try await browser.owner(of: request) else {
            return HTMLPage.redirect(to: Self.deviceSignIn(code))
        }
        return deviceForm(request, owner: owner, code: code, status: .ok)
    }

    /// `POST /owner/device`: the code entered. A well-formed code spends one entry of the session's and the
    /// address's budgets first (``OAuthGrantStore/spendGuess(_:now:window:)``; a budget spent is a 429 page, the code
    /// unread); a code no pending authorization holds is the form again; a right one gives the entry back and shows
    /// the consent page.
    func deviceEntry(_ request: HTTPRequest, from address: String?) async throws -> HTTPResponse {
        let fields = request.formFields()
        guard browser.csrfValid(fields, request) else { return Self.deviceFormTooOld }
        guard let (owner, session) = try await browser.owner(of: request) else {
            return HTMLPage.redirect(to: Self.deviceSignIn(nil))
        }
        guard let code = OAuthUserCode.normalised(fields["user_code"] ?? "") else {
            return deviceForm(
                request, owner: owner, code: nil, status: .badRequest,
                error: "A code is 8 letters, like BCDF-GHJK. Type the one your device shows.")
        }
        let now = clock()
        let budgets = [
            OAuthGrantStore.GuessBudget(key: "session:" + session, limit: configuration.deviceGuessesPerSession),
            OAuthGrantStore.GuessBudget(
                key: "address:" + (address ?? "-"), limit: configuration.deviceGuessesPerAddress),
        ]
        guard try await grants.spendGuess(budgets, now: now, window: configuration.deviceGuessWindow) else {
            metrics.deviceGuessesRefused.increment()
            return BrowserPage.message(
                .tooManyRequests, "Too many wrong codes",
                "Too many wrong codes were entered from this session or address; no more are checked for an hour. "
                    + "Start again from your device later.")
        }
        guard let pending = try await grants.deviceRequest(userCode: code, now: now),
            let subject = try await deviceSubject(pending)
        else {
            return deviceForm(
                request, owner: owner, code: nil, status: .badRequest,
                error: "No device is waiting for that code. Check it, or start again from your device.")
        }
        try await grants.refundGuess(budgets)
        return try await consentPage(subject, owner: owner, request: request, status: .ok)
    }

    /// `POST /owner/device/consent`: the owner's answer to the consent page of a device authorization, whose signed
    /// ticket carries the user code: deny tells the device `access_denied`; approve makes the grant its tokens come
    /// from (recorded `app.approved`, with the browser's address) and the device gets them at its next poll.
    func deviceAnswer(_ request: HTTPRequest, from address: String?) async throws -> HTTPResponse {
        let fields = request.formFields()
        guard browser.csrfValid(fields, request) else { return Self.deviceFormTooOld }
        guard let (owner, _) = try await browser.owner(of: request) else {
            return HTMLPage.redirect(to: Self.deviceSignIn(nil))
        }
        let now = clock()
        guard
            let query = OAuthConsentTicket.open(fields["request"] ?? "", ownerID: owner.id, now: now, key: consentKey),
            let code = HTTPRequest.items(ofQuery: query).first(where: { $0.name == Self.ticketField })?.value,
            let pending = try await grants.deviceRequest(userCode: code, now: now),
            let subject = try await deviceSubject(pending)
        else {
            return BrowserPage.message(
                .badRequest, "Sign in a device",
                "This request has expired or was answered already; start again from your device.")
        }
        let (csrf, _) = browser.csrf(for: request)
        let clientName = subject.client.name
        switch fields["decision"] {
        case "deny"?:
            if try await grants.denyDevice(userCode: code, now: now) { metrics.device(.denied) }
            return HTMLPage.response(
                .ok, OAuthDevicePages.answered(approved: false, clientName: clientName, owner: owner, csrfToken: csrf))
        case "approve"?: break
        default: return BrowserPage.message(.badRequest, "Allow access?", "Choose Allow or Deny.")
        }
        let choice: ConsentChoice
        switch try await choose(fields, request: request, owner: owner, subject: subject, client: address) {
        case .again(let message, let status):
            return try await consentPage(subject, owner: owner, request: request, status: status, error: message)
        case .foreignInbox:
            return BrowserPage.message(
                .forbidden, "Allow access?", "The inbox the device asked for is not one of yours.")
        case .chosen(let chosen): choice = chosen
        }
        guard
            let grant = try await grants.approveDevice(
                userCode: code, ownerID: owner.id, agentID: choice.agentID,
                boundAccountID: choice.inboxOnly ? choice.agentID : nil, permissions: choice.permissions, now: now,
                grantLifetime: configuration.grantLifetime)
        else {
            return BrowserPage.message(
                .conflict, "Sign in a device", "This request has expired or was answered already.")
        }
        metrics.grants.increment()
        metrics.device(.approved)
        await audit.owner(
            owner.id, .appApproved, target: grant.id, client: address,
            details: AuditDetails.json([
                "client_id": grant.clientID, "scopes": choice.permissions.scope, "flow": "device_code",
            ]))
        return HTMLPage.response(
            .ok, OAuthDevicePages.answered(approved: true, clientName: clientName, owner: owner, csrfToken: csrf))
    }

    // MARK: - Steps

    /// The name of the consent ticket's one field: the user code.
    static let ticketField = "device_user_code"

    /// The consent page's subject for `pending`; nil when its client or resource is gone.
    func deviceSubject(_ pending: OAuthGrantStore.DeviceRequest) async throws -> OAuthConsentSubject? {
        guard let client = try await client(id: pending.clientID),
            let target = OAuthResource(pending.resource, configuration: configuration)
        else { return nil }
        var subject = OAuthConsentSubject(
            client: client, scopes: pending.permissions.names, resource: pending.resource, target: target,
            redirectURI: nil, action: "/owner/device/consent",
            query: PercentEncoding.query([(Self.ticketField, pending.userCode)]))
        subject.userCode = OAuthUserCode.displayed(pending.userCode)
        return subject
    }

    func deviceForm(
        _ request: HTTPRequest, owner: Owner, code: String?, status: HTTPStatus, error: String? = nil
    ) -> HTTPResponse {
        let (csrf, setCookie) = browser.csrf(for: request)
        let page = OAuthDevicePages.Entry(
            userCode: code.map(OAuthUserCode.displayed), csrfToken: csrf, owner: owner, error: error)
        return HTMLPage.response(status, page.render(), setCookies: setCookie.map { [$0] } ?? [])
    }

    /// The sign-in page that comes back to the code form (with `code` filled in).
    static func deviceSignIn(_ code: String?) -> String {
        OwnerService.signInPath(
            next: "/owner/device" + (code.map { "?user_code=" + OAuthUserCode.displayed($0) } ?? ""))
    }

    static var deviceFormTooOld: HTTPResponse {
        BrowserPage.message(
            .forbidden, "Sign in a device", "The form was too old or came from elsewhere; open the page again.")
    }
}
