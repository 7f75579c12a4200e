import ClientAddress
import HTTP1
import JSON
import MailStore
import MailboxAccounts
import ServerKit

/// mail.cx's REST API (https://mail.cx/api-docs/, issue 72) over the one mail store: implicit mailboxes at every
/// address of the surface's domains (``MailCXDirectory`` takes their mail), readable by whoever knows the address,
/// kept for the retention (``MailCXConfiguration/retentionSeconds``, an hour).
///
/// Routes, under the base path (`/mailcx/v1`): `GET /config`, the long poll `GET /inbox/{address}`
/// (``MailCXService+Inbox``), `DELETE /inbox/{address}`, `GET`/`DELETE /email/{id}`, `GET /email/{id}/raw`,
/// `GET /email/{id}/attachments/{index}`. What every route shares: the optional `x-api-token` (a live Mail.td Pro API
/// token, else 401 `invalid_token`; it lets its Pro user read its own Mail.td accounts' addresses here too, as mail.cx's
/// tokens reach their custom domains), one rate class (10 a second per client when limits are on), errors as
/// `{"error": "<code>"}`, `Cache-Control: no-store`. An email is read by id only when its address is one the caller
/// may read: a Mail.td account's message is `email_not_found` to anyone else.
public final class MailCXService: Sendable {
    enum RateClass: Hashable, Sendable { case request }

    let configuration: MailCXConfiguration
    let basePath: String
    let accounts: MailboxAccountService
    let mail: MailStore
    let middleware: SurfaceMiddleware<RateClass>
    let clock: @Sendable () -> Int64
    /// The inbox long polls held now, per client and in all.
    let heldPolls: EventStreamLimiter<ClientAddressKey>

    /// Creates the surface; nil when the configuration turns it off.
    /// - Parameters:
    ///   - accounts: the Mail.td surface, whose Pro API tokens `x-api-token` carries.
    ///   - mail: the one mail store, with its change stream.
    ///   - clock: Unix seconds.
    ///   - onUnexpectedError: where an error answered with a bare 500 goes, with the request id.
    public init?(
        configuration: MailCXConfiguration, accounts: MailboxAccountService, mail: MailStore,
        clock: @escaping @Sendable () -> Int64, monotonicClock: MonotonicClock = .system,
        onUnexpectedError: UnexpectedErrorReporter? = nil
    ) {
        guard let basePath = configuration.basePath else { return nil }
        self.configuration = configuration
        self.basePath = basePath
        self.accounts = accounts
        self.mail = mail
        self.clock = clock
        let rate = configuration.rate.share(among: configuration.instances)
        self.middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) { _ in rate }
                : nil,
            tooManyRequests: { _, _ in MailCXError.rateLimitExceeded.response },
            failure: { error in
                if let error = error as? MailCXError { return (error.response, false) }
                let failure = ServiceFailure(error)
                return (MailCXError(failure).response, failure.shouldLog)
            },
            onUnexpectedError: onUnexpectedError)
        self.heldPolls = EventStreamLimiter(
            maxTotal: configuration.heldPolls, maxPerKey: configuration.heldPollsPerClient)
    }

    /// Adds the surface's routes to `router`.
    public func register(into router: inout ContextRouter) {
        let base = basePath
        router.add(.GET, base + "/config", run(config))
        router.add(.GET, base + "/inbox/{address}", run(inbox))
        router.add(.DELETE, base + "/inbox/{address}", run(clearInbox))
        router.add(.GET, base + "/email/{id}", run(email))
        router.add(.DELETE, base + "/email/{id}", run(deleteEmail))
        router.add(.GET, base + "/email/{id}/raw", run(raw))
        router.add(.GET, base + "/email/{id}/attachments/{index}", run(attachment))
    }

    /// The prefix of every path of the surface.
    public var pathPrefix: String { basePath + "/" }

    /// The answer to a path under ``pathPrefix`` that no route takes, or that the HTTP layer refused.
    public func unmatchedResponse(_ status: HTTPStatus) -> HTTPResponse {
        switch status.code {
        case 404: MailCXError.notFound.response
        case 405: MailCXError.methodNotAllowed.response
        default: MailCXError(status: status, code: "invalid_request").response
        }
    }

    private func run(_ handler: @escaping @Sendable (Call) async throws -> HTTPResponse) -> ContextRouteHandler {
        .deferred { [self] request, context, parameters in
            await middleware.run(.request, context) {
                try await handler(
                    Call(
                        request: request, parameters: parameters, client: context.clientKey,
                        reader: try await reader(request)))
            }
        }
    }

    /// What a handler is given: the request, its parameters, who reads.
    struct Call: Sendable {
        let request: HTTPRequest
        let parameters: RouteParameters
        /// The client, whose held polls are counted.
        let client: ClientAddressKey
        let reader: Reader
    }

    /// Who reads: anyone (no token), or a Pro user by its API token.
    enum Reader: Sendable {
        case anyone
        case proUser(String)
    }

    /// The reader `x-api-token` names; 401 `invalid_token` for a token that is not a live Pro API token.
    private func reader(_ request: HTTPRequest) async throws -> Reader {
        guard let token = request.headers["x-api-token"] else { return .anyone }
        guard let (_, userID) = try await accounts.verifyAPIToken(token) else { throw MailCXError.invalidToken }
        return .proUser(userID)
    }

    /// `GET /config`: the domains (the first the default) and the local-part rules an address must meet.
    func config(_ call: Call) async throws -> HTTPResponse {
        let domains: [JSONValue] = configuration.domains.enumerated().map { index, domain in
            .object([("domain", .string(domain)), ("default", .bool(index == 0))])
        }
        return HTTPResponse.noStoreJSON(
            .ok,
            .object([
                ("system_domains", .array(domains)),
                ("local_part_rules", .object([
                    ("pattern", .string("^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$")), ("min_length", .int(1)),
                    ("max_length", .int(64)),
                ])),
                ("retention_seconds", .int(configuration.retentionSeconds)),
                ("long_poll_seconds", .int(Int64(configuration.holdSeconds))),
            ]))
    }

    /// The address `text` names if the caller may read it: 400 `invalid_address` for a malformed one, 403
    /// `domain_not_allowed` for one on another domain (unless it is one of the token's accounts).
    func readableAddress(_ text: String?, _ reader: Reader) async throws -> String {
        guard let text, let address = MailboxAddress(text) else { throw MailCXError.invalidAddress }
        guard try await mayRead(address.description, domain: address.domain, reader) else {
            throw MailCXError.domainNotAllowed
        }
        return address.description
    }

    /// Whether `reader` may read the mail of `address` (on `domain`).
    func mayRead(_ address: String, domain: String, _ reader: Reader) async throws -> Bool {
        if configuration.domains.contains(domain) { return true }
        guard case .proUser(let id) = reader else { return false }
        return try await accounts.accountAddresses(proUserID: id).contains(address)
    }
}
