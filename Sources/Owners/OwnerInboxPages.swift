import Audit
import BrowserPages
import Directory
import EmailAddresses
import HTTP1
import ServerKit

/// The routes of `/owner` (``OwnerInboxesPage``): the owner's inboxes and connected apps; create an inbox, link one by
/// its API key, rotate a key, unlink or delete an inbox, revoke an app. Every post is CSRF-checked and answers 303
/// back to `/owner` (a refresh never posts again) with a one-time notice; a key just made rides the 303 sealed to the
/// session (``OwnerKeyFlash``), shown once in a `no-store` page, never in a URL or in clear in a cookie. Deleting an
/// inbox asks first: a page where the owner types the address. An inbox or grant that is not the owner's is a 404
/// page, as an unknown one is, so ids cannot be probed.
public struct OwnerInboxPages: Sendable {
    let service: OwnerService
    let inboxes: any OwnedInboxes
    let grants: OwnerGrants
    let agentDomain: String

    /// - Parameters:
    ///   - service: sign-in, sessions and CSRF.
    ///   - inboxes: the owner's inboxes (the agent surface); at most ``OwnersConfiguration/maxInboxes`` each.
    ///   - grants: the owner's connected apps.
    ///   - agentDomain: the agent inbox domain new inboxes are made on (shown beside the username field).
    public init(
        service: OwnerService, inboxes: any OwnedInboxes, grants: OwnerGrants, agentDomain: String
    ) {
        self.service = service
        self.inboxes = CappedOwnedInboxes(inboxes, limit: service.configuration.maxInboxes)
        self.grants = grants
        self.agentDomain = agentDomain
    }

    /// Adds `GET /owner`, `POST /owner/inboxes`, `POST /owner/inboxes/link`,
    /// `POST /owner/inboxes/{accountId}/rotate-key`, `.../unlink`, `.../delete` and
    /// `POST /owner/apps/{grantId}/revoke`, `POST /owner/openid-apps/{clientId}/revoke`.
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        router.add(.GET, "/owner", route { request, _, owner, _ in try await show(request, owner) })
        router.add(.POST, "/owner/inboxes", bodyLimit: limit, route(create))
        router.add(.POST, "/owner/inboxes/link", bodyLimit: limit, route(link))
        router.add(.POST, "/owner/inboxes/{accountId}/rotate-key", bodyLimit: limit, route(rotate))
        router.add(.POST, "/owner/inboxes/{accountId}/unlink", bodyLimit: limit, route(unlink))
        router.add(.POST, "/owner/inboxes/{accountId}/delete", bodyLimit: limit, route(delete))
        router.add(.POST, "/owner/apps/{grantId}/revoke", bodyLimit: limit, route(revoke))
        router.add(.POST, "/owner/openid-apps/{clientId}/revoke", bodyLimit: limit, route(revokeOpenID))
    }

    static let title = "Your inboxes"

    private func route(_ handler: @escaping OwnerService.OwnerActionHandler) -> ContextRouteHandler {
        service.ownerRoute(page: "/owner", title: Self.title, handler)
    }

    /// The page, as `configure` adjusts it; `setCookies` are sent besides the CSRF cookie when one is needed.
    private func page(
        _ request: HTTPRequest, _ owner: Owner, status: HTTPStatus = .ok, setCookies: [String] = [],
        configure: (inout OwnerInboxesPage) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        let (token, csrfCookie) = service.browser.csrf(for: request)
        var page = OwnerInboxesPage(
            owner: owner, csrfToken: token, agentDomain: agentDomain,
            inboxes: try await inboxes.inboxes(ownerID: owner.id), grants: try await grants.grants(ownerID: owner.id))
        page.openIDApps = try await grants.openIDApps(ownerID: owner.id)
        page.activity = await recentActivity(ownerID: owner.id)
        page.signInMethods = try await service.signInMethods(of: owner, csrfToken: token)
        page.awaitingApproval = service.configuration.outsideSendingNeedsApproval && owner.approvedAt == nil
        configure(&page)
        // The passkey forms' script, from this origin only (``OwnerPasskeyScript``).
        return HTMLPage.response(
            status, page.render(), policy: service.passkeys != nil ? .script(.self) : .page,
            setCookies: setCookies + (csrfCookie.map { [$0] } ?? []))
    }

    /// The owner's newest events (their own only); none when the trail cannot be read, which never fails the page.
    private func recentActivity(ownerID: String) async -> [AuditEvent] {
        guard let log = service.audit.log else { return [] }
        do {
            return try await log.events(since: nil, ownerID: ownerID, limit: OwnerInboxesPage.activityLimit)
                .filter { $0.ownerID == ownerID }
        } catch {
            return []
        }
    }

    private func show(_ request: HTTPRequest, _ owner: Owner) async throws -> HTTPResponse {
        let code = request.cookie(OwnerBrowser.flashCookie)
        let sealed = request.cookie(OwnerBrowser.keyFlashCookie)
        guard code != nil || sealed != nil else { return try await page(request, owner) }
        var cleared: [String] = []
        if code != nil { cleared.append(service.browser.clearCookie(OwnerBrowser.flashCookie)) }
        var shownKey: OwnerKeyFlash?
        if let sealed {
            cleared.append(service.browser.clearKeyFlashCookie())
            if let session = request.cookie(OwnerBrowser.sessionCookie) {
                shownKey = OwnerKeyFlash(
                    cookie: sealed, browserKey: service.browser.key, session: session,
                    now: service.browser.sessions.clock())
            }
        }
        return try await page(request, owner, setCookies: cleared) { page in
            page.notice =
                code.flatMap(OwnerInboxFlash.init(code:))?.notice(inboxes: page.inboxes)
                ?? code.flatMap(OwnerSignInMethodsFlash.init(rawValue:))?.notice
            page.shownKey = shownKey.map { ($0.address, $0.apiKey, $0.created) }
        }
    }

    /// A 303 to `/owner` that carries `key` sealed to the browser's session, shown there once.
    private func redirect(showing key: OwnerKeyFlash, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let session = request.cookie(OwnerBrowser.sessionCookie) else { return HTMLPage.redirect(to: "/owner") }
        let sealed = try key.seal(
            browserKey: service.browser.key, session: session, now: service.browser.sessions.clock())
        return HTMLPage.redirect(to: "/owner", setCookies: [service.browser.keyFlashCookie(sealed)])
    }

    private func create(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ client: String?) async throws
        -> HTTPResponse
    {
        let typed = request.formFields()["username"] ?? ""
        do {
            let (inbox, key) = try await inboxes.createInbox(username: typed, ownerID: owner.id)
            await service.audit.owner(owner.id, .inboxCreated, target: inbox.address, client: client)
            return try redirect(showing: OwnerKeyFlash(address: inbox.address, apiKey: key, created: true), request)
        } catch let error as OwnedInboxError {
            let (status, words): (HTTPStatus, String) =
                switch error {
                case .usernameTaken: (.conflict, "That address is taken: choose another username.")
                case .limitReached(let limit): (.forbidden, OwnerMessage.inboxLimit(limit))
                case .reservedUsername: (.unprocessableEntity, "That username is reserved: choose another.")
                default:
                    (.unprocessableEntity, "Use 5 to 21 of a-z 0-9 . _ -, starting and ending with a letter or digit.")
                }
            return try await page(request, owner, status: status) {
                $0.error = words
                $0.errorForm = "create"
                $0.typedUsername = typed
            }
        }
    }

    private func link(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ client: String?) async throws
        -> HTTPResponse
    {
        let key = (request.formFields()["api_key"] ?? "").trimmingASCIIWhitespace
        do {
            let inbox = try await inboxes.link(apiKey: key, ownerID: owner.id)
            await service.audit.owner(owner.id, .inboxLinked, target: inbox.address, client: client)
            return HTMLPage.redirect(
                to: "/owner", setCookies: [service.browser.flashCookie(OwnerInboxFlash.linked(inbox.accountID).code)])
        } catch let error as OwnedInboxError {
            let (status, words): (HTTPStatus, String) =
                switch error {
                case .heldByAnother: (.conflict, "Another owner holds that inbox.")
                case .limitReached(let limit): (.forbidden, OwnerMessage.inboxLimit(limit))
                default: (.unprocessableEntity, "No inbox has that API key. Check it, or rotate it if it was lost.")
                }
            return try await page(request, owner, status: status) {
                $0.error = words
                $0.errorForm = "link"
            }
        }
    }

    private func rotate(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws
        -> HTTPResponse
    {
        guard let id = parameters["accountId"], let inbox = try await inboxes.inbox(accountID: id, ownerID: owner.id),
            let key = try await inboxes.rotateKey(accountID: inbox.accountID, ownerID: owner.id)
        else { return BrowserPage.message(.notFound, Self.title, "No such inbox.") }
        await service.audit.owner(owner.id, .inboxKeyRotated, target: inbox.address, client: client)
        return try redirect(showing: OwnerKeyFlash(address: inbox.address, apiKey: key, created: false), request)
    }

    private func unlink(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws
        -> HTTPResponse
    {
        guard let id = parameters["accountId"], let inbox = try await inboxes.unlink(accountID: id, ownerID: owner.id)
        else { return BrowserPage.message(.notFound, Self.title, "No such inbox.") }
        await service.audit.owner(owner.id, .inboxUnlinked, target: inbox.address, client: client)
        return HTMLPage.redirect(to: "/owner", setCookies: [service.browser.flashCookie(OwnerInboxFlash.unlinked.code)])
    }

    /// Without a `confirm` field: the confirmation page, nothing deleted. With the inbox's address typed in it: the
    /// inbox and its mail go, then a 303 back. Anything else typed: the confirmation page again, nothing deleted.
    private func delete(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws
        -> HTTPResponse
    {
        guard let id = parameters["accountId"], let inbox = try await inboxes.inbox(accountID: id, ownerID: owner.id)
        else { return BrowserPage.message(.notFound, Self.title, "No such inbox.") }
        let (token, csrfCookie) = service.browser.csrf(for: request)
        let cookies = csrfCookie.map { [$0] } ?? []
        var confirmation = OwnerInboxDeletePage(owner: owner, csrfToken: token, inbox: inbox)
        guard let typed = request.formFields()["confirm"] else {
            return HTMLPage.response(.ok, confirmation.render(), setCookies: cookies)
        }
        guard EmailAddress.same(typed.trimmingASCIIWhitespace, inbox.address) else {
            confirmation.error = "Type the inbox's address exactly to delete it. Nothing was deleted."
            return HTMLPage.response(.unprocessableEntity, confirmation.render(), setCookies: cookies)
        }
        guard try await inboxes.delete(accountID: inbox.accountID, ownerID: owner.id) != nil else {
            return BrowserPage.message(.notFound, Self.title, "No such inbox.")
        }
        await service.audit.owner(owner.id, .inboxDeleted, target: inbox.address, client: client)
        return HTMLPage.redirect(to: "/owner", setCookies: [service.browser.flashCookie(OwnerInboxFlash.deleted.code)])
    }

    private func revoke(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws
        -> HTTPResponse
    {
        try await revoked(parameters["grantId"], owner, client) { try await grants.revoke(id: $0, ownerID: owner.id) }
    }

    private func revokeOpenID(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws
        -> HTTPResponse
    {
        try await revoked(parameters["clientId"], owner, client) {
            try await grants.revokeOpenID(clientID: $0, ownerID: owner.id)
        }
    }

    /// Revokes app `id` with `revoke` (false: not the owner's), records `app.revoked` and goes back to `/owner`.
    private func revoked(
        _ id: String?, _ owner: Owner, _ client: String?, _ revoke: (String) async throws -> Bool
    ) async throws -> HTTPResponse {
        guard let id, try await revoke(id) else { return BrowserPage.message(.notFound, Self.title, "No such app.") }
        await service.audit.owner(owner.id, .appRevoked, target: id, client: client)
        return HTMLPage.redirect(to: "/owner", setCookies: [service.browser.flashCookie(OwnerInboxFlash.revoked.code)])
    }
}

extension String {
    /// Without leading and trailing white space (a pasted key).
    fileprivate var trimmingASCIIWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
