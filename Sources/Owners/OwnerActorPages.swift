import Audit
import BrowserPages
import HTTP1
import OAuthGrants
import ServerKit

/// The routes of `/owner/actors` (``OwnerActorsPage``): which agent clients may act for the owner (issue 86 item 3):
/// trade the owner's access token for one naming the client in `act` (token exchange, RFC 8693), or take one with an
/// identity assertion (the JWT bearer grant). A client not on the list is refused both. Removing a client ends every
/// token minted for it (and for any sub-agent below it) at once. Every post is CSRF-checked.
public struct OwnerActorPages: Sendable {
    let service: OwnerService
    let grants: OAuthGrantStore
    let clients: OAuthConfidentialClients
    let enabled: Bool
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - service: sign-in, sessions, CSRF and audit.
    ///   - grants: the grant model (the allowed actors and the tokens minted for them).
    ///   - clients: the confidential clients (the owner's own agent clients, offered on the page).
    ///   - enabled: whether the authorization server serves token exchange or the JWT bearer grant; off, the page
    ///     says so and allows no client.
    ///   - clock: Unix seconds.
    public init(
        service: OwnerService, grants: OAuthGrantStore, clients: OAuthConfidentialClients, enabled: Bool,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.service = service
        self.grants = grants
        self.clients = clients
        self.enabled = enabled
        self.clock = clock
    }

    /// Adds `GET|POST /owner/actors` and `POST /owner/actors/{id}/remove`.
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        router.add(.GET, "/owner/actors", route { request, _, owner, _ in try await page(request, owner) })
        router.add(.POST, "/owner/actors", bodyLimit: limit, route(allow))
        router.add(.POST, "/owner/actors/{id}/remove", bodyLimit: limit, route(remove))
    }

    private func route(_ handler: @escaping OwnerService.OwnerActionHandler) -> ContextRouteHandler {
        service.ownerRoute(page: "/owner/actors", title: OwnerActorsPage.title, handler)
    }

    private func page(
        _ request: HTTPRequest, _ owner: Owner, status: HTTPStatus = .ok,
        configure: (inout OwnerActorsPage) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        try await service.respond(request, status: status, configure: configure) { token in
            OwnerActorsPage(
                owner: owner, csrfToken: token, actors: try await grants.actors(ownerID: owner.id),
                ownClients: try await clients.list(ownerID: owner.id), enabled: enabled)
        }
    }

    private func allow(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard enabled else {
            return try await page(request, owner, status: .forbidden) {
                $0.error = "This server does not serve token exchange: no client can act for you."
            }
        }
        let id = (request.formFields()["client_id"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty, id.utf8.count <= 256 else {
            return try await page(request, owner, status: .unprocessableEntity) { $0.error = "Name a client id." }
        }
        switch try await grants.allowActor(ownerID: owner.id, clientID: id, now: clock()) {
        case .unknownClient:
            return try await page(request, owner, status: .unprocessableEntity) {
                $0.error = "No agent client of yours or of the operator has that id."
            }
        case .alreadyAllowed:
            return try await page(request, owner) {
                $0.notice = PageNotice("That client may act for you already.", .success)
            }
        case .allowed:
            await service.audit.owner(owner.id, .actorAllowed, target: id, client: client)
            return try await page(request, owner, status: .created) {
                $0.notice = PageNotice("The client may act for you now.", .success)
            }
        }
    }

    private func remove(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard let id = parameters["id"], try await grants.removeActor(ownerID: owner.id, clientID: id, now: clock())
        else { return BrowserPage.message(.notFound, OwnerActorsPage.title, "No such client acts for you.") }
        await service.audit.owner(owner.id, .actorRemoved, target: id, client: client)
        return try await page(request, owner) {
            $0.notice = PageNotice("The client no longer acts for you; its tokens stop now.", .success)
        }
    }
}
