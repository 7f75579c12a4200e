import Directory
import HTTP1
import ServerKit

/// The routes of `/owner` (``OwnerInboxesPage``): the owner's inboxes and connected apps; create an inbox, link one by
/// its API key, rotate a key, revoke an app. Every post is CSRF-checked. A new key is shown in the post's own response
/// (`no-store`), never in a URL or cookie; link and revoke answer 303 back to `/owner` with a one-time notice. An
/// inbox or grant that is not the owner's is a 404 page, as an unknown one is, so ids cannot be probed.
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
    public init(service: OwnerService, inboxes: any OwnedInboxes, grants: OwnerGrants, agentDomain: String) {
        self.service = service
        self.inboxes = CappedOwnedInboxes(inboxes, limit: service.configuration.maxInboxes)
        self.grants = grants
        self.agentDomain = agentDomain
    }

    /// Adds `GET /owner`, `POST /owner/inboxes`, `POST /owner/inboxes/link`,
    /// `POST /owner/inboxes/{accountId}/rotate-key` and `POST /owner/apps/{grantId}/revoke`.
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        router.add(.GET, "/owner", route { request, _, owner in try await show(request, owner) })
        router.add(.POST, "/owner/inboxes", bodyLimit: limit, route(create))
        router.add(.POST, "/owner/inboxes/link", bodyLimit: limit, route(link))
        router.add(.POST, "/owner/inboxes/{accountId}/rotate-key", bodyLimit: limit, route(rotate))
        router.add(.POST, "/owner/apps/{grantId}/revoke", bodyLimit: limit, route(revoke))
    }

    static let title = "Your inboxes"

    private func route(_ handler: @escaping OwnerService.OwnerPageHandler) -> ContextRouteHandler {
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
        configure(&page)
        return HTMLPage.response(status, page.render(), setCookies: setCookies + (csrfCookie.map { [$0] } ?? []))
    }

    private func show(_ request: HTTPRequest, _ owner: Owner) async throws -> HTTPResponse {
        guard let code = request.cookie(OwnerBrowser.flashCookie) else { return try await page(request, owner) }
        let cleared = [service.browser.clearCookie(OwnerBrowser.flashCookie)]
        return try await page(request, owner, setCookies: cleared) { page in
            page.notice = OwnerInboxFlash(code: code)?.words(inboxes: page.inboxes)
        }
    }

    private func create(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner) async throws -> HTTPResponse {
        let typed = request.formFields()["username"] ?? ""
        do {
            let (inbox, key) = try await inboxes.createInbox(username: typed, ownerID: owner.id)
            return try await page(request, owner, status: .created) {
                $0.shownKey = (inbox.address, key, true)
            }
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

    private func link(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner) async throws -> HTTPResponse {
        let key = (request.formFields()["api_key"] ?? "").trimmingASCIIWhitespace
        do {
            let inbox = try await inboxes.link(apiKey: key, ownerID: owner.id)
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

    private func rotate(_ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner) async throws
        -> HTTPResponse
    {
        guard let id = parameters["accountId"], let inbox = try await inboxes.inbox(accountID: id, ownerID: owner.id),
            let key = try await inboxes.rotateKey(accountID: inbox.accountID, ownerID: owner.id)
        else { return OwnerService.messagePage(.notFound, Self.title, "No such inbox.") }
        return try await page(request, owner) { $0.shownKey = (inbox.address, key, false) }
    }

    private func revoke(_ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner) async throws
        -> HTTPResponse
    {
        guard let id = parameters["grantId"], try await grants.revoke(id: id, ownerID: owner.id) else {
            return OwnerService.messagePage(.notFound, Self.title, "No such app.")
        }
        return HTMLPage.redirect(to: "/owner", setCookies: [service.browser.flashCookie(OwnerInboxFlash.revoked.code)])
    }
}

extension String {
    /// Without leading and trailing white space (a pasted key).
    fileprivate var trimmingASCIIWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
