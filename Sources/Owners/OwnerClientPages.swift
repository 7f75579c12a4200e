import Audit
import BrowserPages
import Directory
import HTTP1
import OAuthGrants
import ServerKit

/// The routes of `/owner/clients` (``OwnerClientsPage``): list, make and delete an owner's agent clients, confidential
/// OAuth clients bound to inboxes the owner holds (issue 86). A client's tokens reach a bound inbox only while the
/// owner holds it (``OwnedInboxes/inboxes(reachedBy:)``). Every post is CSRF-checked; a client that is not the
/// owner's is a 404 page.
public struct OwnerClientPages: Sendable {
    let service: OwnerService
    let inboxes: any OwnedInboxes
    let clients: OAuthConfidentialClients
    let enabled: Bool
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - service: sign-in, sessions, CSRF and audit.
    ///   - inboxes: the owner's inboxes (what a client may be bound to).
    ///   - clients: the confidential clients of the grant model.
    ///   - enabled: whether the authorization server serves the client credentials grant; off, the page says so and
    ///     makes no client.
    ///   - clock: Unix seconds.
    public init(
        service: OwnerService, inboxes: any OwnedInboxes, clients: OAuthConfidentialClients, enabled: Bool,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.service = service
        self.inboxes = inboxes
        self.clients = clients
        self.enabled = enabled
        self.clock = clock
    }

    /// Adds `GET|POST /owner/clients` and `POST /owner/clients/{id}/delete`.
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        router.add(.GET, "/owner/clients", route { request, _, owner, _ in try await page(request, owner) })
        router.add(.POST, "/owner/clients", bodyLimit: limit, route(create))
        router.add(.POST, "/owner/clients/{id}/delete", bodyLimit: limit, route(delete))
    }

    private func route(_ handler: @escaping OwnerService.OwnerActionHandler) -> ContextRouteHandler {
        service.ownerRoute(page: "/owner/clients", title: "Agent clients", handler)
    }

    private func page(
        _ request: HTTPRequest, _ owner: Owner, status: HTTPStatus = .ok,
        configure: (inout OwnerClientsPage) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        try await service.respond(request, status: status, configure: configure) { token in
            OwnerClientsPage(
                owner: owner, csrfToken: token, clients: try await clients.list(ownerID: owner.id),
                inboxes: try await inboxes.inboxes(ownerID: owner.id), enabled: enabled)
        }
    }

    private func create(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard enabled else {
            return try await page(request, owner, status: .forbidden) {
                $0.error = "This server does not serve the client credentials grant."
            }
        }
        let name = (request.formFields()["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let held = Set(try await inboxes.inboxes(ownerID: owner.id).map(\.accountID))
        let chosen = request.formValues("inbox").map { $0.lowercased() }
        guard !name.isEmpty, name.count <= 200, !name.contains(where: \.isNewline) else {
            return try await page(request, owner, status: .unprocessableEntity) {
                $0.error = "Give the client a name of one line (at most 200 characters)."
            }
        }
        guard !chosen.isEmpty, chosen.allSatisfy(held.contains) else {
            return try await page(request, owner, status: .unprocessableEntity) {
                $0.error = "Tick at least one of your inboxes."
            }
        }
        guard let permissions = MailPermissions(scope: request.formValues("scope").joined(separator: " ")) else {
            return try await page(request, owner, status: .unprocessableEntity) {
                $0.error = "Tick at least one permission."
            }
        }
        let made = try await clients.create(
            .init(
                name: name, authMethod: .clientSecretBasic, permissions: permissions, inboxes: chosen,
                introspection: false),
            ownerID: owner.id, now: clock())
        await service.audit.owner(owner.id, .agentClientCreated, target: made.client.clientID, client: client)
        return try await page(request, owner, status: .created) {
            $0.created = (made.client.clientID, made.secret ?? "")
            $0.notice = PageNotice("Made \(name).", .success)
        }
    }

    private func delete(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard let id = parameters["id"], try await clients.delete(clientID: id, ownerID: owner.id) else {
            return BrowserPage.message(.notFound, "Agent clients", "No such client.")
        }
        await service.audit.owner(owner.id, .agentClientDeleted, target: id, client: client)
        return try await page(request, owner) {
            $0.notice = PageNotice("Deleted the client; its tokens stop now.", .success)
        }
    }
}
