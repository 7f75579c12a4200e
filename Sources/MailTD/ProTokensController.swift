import MailboxAccounts
import MailboxRoutes
import Audit
import HTTP1
import JSON
import ServerKit

/// A Pro user's named API tokens (`tm_pro_...`): made (shown once), listed without secrets, revoked.
struct ProTokensController: MailboxController {
    let surface: MailboxService

    /// Adds the resource's routes to `router`.
    func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        router.add(.POST, "/api/user/tokens", bodyLimit: limit, deferred(.general, createAPIToken))
        router.add(.GET, "/api/user/tokens", deferred(.general, listAPITokens))
        router.add(.DELETE, "/api/user/tokens/{id}", deferred(.general, revokeAPIToken))
    }

    /// `POST /api/user/tokens {"name"}`: a new `tm_pro_` token, shown once. `name` is optional (default
    /// `"api"`), at most 100 characters.
    func createAPIToken(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        var name: String?
        if !call.request.body.isEmpty { name = try MailboxJSON.string(MailboxJSON.object(call.request.body), "name") }
        let (info, token) = try await surface.accounts.createAPIToken(
            for: user, name: name, now: call.now, client: call.context.clientAddress?.description)
        return MailboxJSON.response(
            .created, [("id", .string(info.id)), ("name", .string(info.name)), ("token", .string(token))])
    }

    /// `GET /api/user/tokens`: every token of the user, revoked ones too, without the secrets.
    func listAPITokens(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let list: [JSONValue] = try await surface.accounts.apiTokens(of: user).map { token in
            .object([
                ("id", .string(token.id)), ("name", .string(token.name)),
                ("last_used_at", MailboxJSON.time(token.lastUsedAt)), ("created_at", MailboxJSON.time(token.createdAt)),
                ("revoked_at", MailboxJSON.time(token.revokedAt)),
            ])
        }
        return MailboxJSON.response(.ok, [("tokens", .array(list))])
    }

    /// `DELETE /api/user/tokens/{id}`: revoked at once (the next request with it gets 401); 404 when the
    /// user has no such token; revoking twice is 204 both times.
    func revokeAPIToken(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        try await surface.accounts.revokeAPIToken(
            id: call.id, of: user, now: call.now, client: call.context.clientAddress?.description)
        return MailboxJSON.noContent()
    }
}
