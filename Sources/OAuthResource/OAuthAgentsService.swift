import Directory
import HTTP1
import JSON
import ServerKit

/// `GET /api/v1/agents` (`api-docs/oauth-mcp-contract.md` 1.11): the inboxes of the owner whose access token, for
/// the `/jmap` or `/mcp` resource, is the bearer; nothing else opens it (README "OAuth for apps", decision 6).
/// Refusals are RFC 6750's: 401 `invalid_token` with `WWW-Authenticate`.
public struct OAuthAgentsService: Sendable {
    let verifier: any AccessGrantAuthenticator
    let inboxes: any OwnedInboxes
    let publicURL: String
    let onUnexpectedError: UnexpectedErrorReporter

    /// - Parameters:
    ///   - verifier: the access-token verifier.
    ///   - inboxes: who holds which inbox.
    ///   - publicURL: the public base URL (no trailing slash), for the `_next` steps.
    ///   - onUnexpectedError: called with each error answered with a bare 500.
    public init(
        verifier: any AccessGrantAuthenticator, inboxes: any OwnedInboxes, publicURL: String,
        onUnexpectedError: @escaping UnexpectedErrorReporter = { _, _ in }
    ) {
        self.verifier = verifier
        self.inboxes = inboxes
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.onUnexpectedError = onUnexpectedError
    }

    public func register(into router: inout ContextRouter) {
        router.add(.GET, "/api/v1/agents", .deferred { request, context, _ in await agents(request, context) })
    }

    func agents(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        guard let token = request.bearerToken else {
            var response = HTTPResponse.noStoreJSON(
                .unauthorized,
                .object([
                    ("error", "invalid_token"),
                    ("error_description", "Send Authorization: Bearer <access token> (OAuth, resource /jmap or /mcp)."),
                ]))
            response.headers.add("WWW-Authenticate", "Bearer")
            return response
        }
        do {
            let grant = try await verifier.grant(for: token, resources: [.jmap, .mcp])
            // A grant bound to one inbox at consent lists that inbox only: it is all the token reaches.
            let held = try await inboxes.inboxes(ownerID: grant.ownerID).filter {
                grant.boundInboxID == nil || $0.accountID == grant.boundInboxID
            }
            let agents = held.map { inbox -> JSONValue in
                .object([
                    ("accountId", .string(inbox.accountID)), ("inboxId", .string(inbox.username)),
                    ("address", .string(inbox.address)), ("status", "active"),
                    ("linkedAt", .string(Self.timestamp(inbox.linkedAt))),
                    ("activatedAt", .string(Self.timestamp(inbox.activatedAt))),
                ])
            }
            let next: [JSONValue] = [
                .string(
                    "Call JMAP at POST \(publicURL)/jmap with an access token for resource \(publicURL)/jmap and the "
                        + "header X-Atomic-Account-Id: <accountId>"),
                .string("Over MCP (resource \(publicURL)/mcp), pass an accountId as agent_id to pick the inbox"),
            ]
            return .noStoreJSON(.ok, .object([("agents", .array(agents)), ("_next", .array(next))]))
        } catch let refusal as AuthenticationRefusal {
            var response = HTTPResponse.noStoreJSON(
                HTTPStatus(code: refusal.status), refusal.body(publicURL: publicURL))
            if let challenge = refusal.challenge() { response.headers.add("WWW-Authenticate", challenge) }
            return response
        } catch {
            let failure = ServiceFailure(error)
            if failure.shouldLog { onUnexpectedError(error, context.requestID) }
            var response = HTTPResponse.noStoreJSON(
                failure.status,
                .object([("error", "server_error"), ("error_description", "The server could not answer; try again.")]))
            if failure.status == .serviceUnavailable { response.headers.setRetryAfter(seconds: 1) }
            return response
        }
    }

    /// ISO 8601 in UTC with milliseconds: `2026-07-01T09:14:22.000Z`.
    static func timestamp(_ seconds: Int64) -> String {
        String(RFC3339.format(seconds).dropLast()) + ".000Z"
    }
}
