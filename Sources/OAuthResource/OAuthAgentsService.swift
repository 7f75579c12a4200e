import Directory
import HTTP1
import JSON
import ServerKit
import Time

/// `GET /api/v1/agents` (`api-docs/oauth-mcp-contract.md` 1.11): the inboxes of the owner whose access token, for
/// the `/jmap` or `/mcp` resource, is the bearer (a client's own token: the inboxes it is bound to); nothing else
/// opens it (docs/decisions/0019).
/// Refusals are RFC 6750's: 401 `invalid_token` with `WWW-Authenticate`. Behind ``SurfaceMiddleware`` like every
/// route: a per-client rate limit (429 `slow_down` with `Retry-After`), the bare 500 and 503 answers.
public struct OAuthAgentsService: Sendable {
    let bearers: BearerAuthenticator
    let inboxes: any OwnedInboxes
    let publicURL: String
    let middleware: SurfaceMiddleware<RateClass>

    /// What a request draws on: every request alike.
    enum RateClass: Hashable, Sendable {
        case request
    }

    /// - Parameters:
    ///   - verifier: the access-token verifier.
    ///   - inboxes: who holds which inbox.
    ///   - publicURL: the public base URL (no trailing slash), for the `_next` steps.
    ///   - rateLimits: the per-client request rate, its table and the instances sharing it.
    ///   - onUnexpectedError: called with each error answered with a bare 500.
    ///   - monotonicClock: the rate limit's clock.
    public init(
        verifier: any AccessGrantAuthenticator, inboxes: any OwnedInboxes, publicURL: String,
        rateLimits: OAuthResourceConfiguration.RateLimits = .init(),
        onUnexpectedError: @escaping UnexpectedErrorReporter = { _, _ in }, monotonicClock: MonotonicClock = .system
    ) {
        self.bearers = BearerAuthenticator(accessTokens: verifier, principals: nil)
        self.inboxes = inboxes
        let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.publicURL = base
        let rate = TokenBucketRate(requests: rateLimits.requestsPerMinute, perSeconds: 60)
            .share(among: rateLimits.instances)
        middleware = SurfaceMiddleware(
            limiter: rateLimits.enabled
                ? RateLimitTable(capacity: rateLimits.tableCapacity, clock: monotonicClock) { _ in rate } : nil,
            tooManyRequests: { _, decision in
                HTTPResponse.noStoreJSON(
                    .tooManyRequests,
                    .object([
                        ("error", "slow_down"),
                        (
                            "error_description",
                            .string("Too many requests from this address; retry after \(decision.retryAfterSeconds) s.")
                        ),
                    ]))
            },
            failure: { error in
                if let refusal = error as? AuthenticationRefusal {
                    var response = HTTPResponse.noStoreJSON(HTTPStatus(code: refusal.status), refusal.body(publicURL: base))
                    if let challenge = refusal.challenge() { response.headers.add("WWW-Authenticate", challenge) }
                    return (response, false)
                }
                let failure = ServiceFailure(error)
                return failure.answer(
                    HTTPResponse.noStoreJSON(
                        failure.status,
                        .object([
                            ("error", "server_error"),
                            ("error_description", "The server could not answer; try again."),
                        ])))
            },
            onUnexpectedError: onUnexpectedError)
    }

    public func register(into router: inout ContextRouter) {
        router.add(
            .GET, "/api/v1/agents",
            .deferred { request, context, _ in
                await middleware.run(.request, context) { try await agents(request) }
            })
    }

    func agents(_ request: HTTPRequest) async throws -> HTTPResponse {
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
        guard
            case .owner(let grant)? = try await bearers.authenticate(
                Credentials(bearerToken: token), resources: [.jmap, .mcp])
        // A route of access tokens only: the chain verifies every bearer as one, so it answers an owner or throws.
        else { throw AuthenticationRefusal(.invalidToken, "Send an OAuth access token for resource /jmap or /mcp.") }
        // A grant bound to one inbox at consent lists that inbox only: it is all the token reaches. A client's own
        // token (client credentials) reaches the inboxes its client was bound to.
        let held = try await inboxes.inboxes(reachedBy: grant)
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
        return HTTPResponse.noStoreJSON(.ok, .object([("agents", .array(agents)), ("_next", .array(next))]))
    }

    /// ISO 8601 in UTC with milliseconds: `2026-07-01T09:14:22.000Z`.
    static func timestamp(_ seconds: Int64) -> String {
        String(RFC3339.format(seconds).dropLast()) + ".000Z"
    }
}
