import ClientAddress
import HTTP1
import MailStore
import MailboxAccounts
import ServerKit

/// mail.tm's API (https://docs.mail.tm, issue 72) over Mail.td's accounts and the one mail store, so that code written
/// against mail.tm's clients works against Postern by changing only the base URL (`<public URL>/mailtm`).
///
/// The accounts are the Mail.td surface's (``MailboxAccountService``: its passwords, its mailbox tokens, its `quota` and
/// `used`), on the domains this surface is given; the messages are the store's inbox of the account's address. What
/// every route shares: its one rate class (8 requests a second per client, when limits are on), the error shapes of
/// ``MailTMError`` and `Cache-Control: no-store`. The routes, under the base path: `GET /domains`, `/domains/{id}`,
/// `POST /accounts`, `POST /token`, `GET /me`, `GET`/`DELETE /accounts/{id}`, `GET /messages?page=`,
/// `GET`/`PATCH`/`DELETE /messages/{id}`, `GET /messages/{id}/download`, `/messages/{id}/attachment/{attachment}`,
/// `GET /sources/{id}`, and the Mercure hub `GET /.well-known/mercure` (``MailTMService+Mercure``).
public final class MailTMService: Sendable {
    /// The one rate class: every request counts alike.
    enum RateClass: Hashable, Sendable { case request }

    let configuration: MailTMConfiguration
    let basePath: String
    let domains: [String]
    let accounts: MailboxAccountService
    let mail: MailStore
    let middleware: SurfaceMiddleware<RateClass>
    let clock: @Sendable () -> Int64
    /// When this service started: the `createdAt` of its domains.
    let startedAt: Int64
    /// The open Mercure streams, per client and in all.
    let mercureStreams: EventStreamLimiter<ClientAddressKey>

    /// Creates the surface; nil when the configuration turns it off (no base path).
    /// - Parameters:
    ///   - configuration: the surface's settings; its `domains` nil means the Mail.td surface's public domains.
    ///   - accounts: the Mail.td surface, owner of the accounts and their tokens.
    ///   - mail: the one mail store (the composition root's, with its change stream).
    ///   - clock: Unix seconds.
    ///   - monotonicClock: what the rate-limit buckets refill by.
    ///   - onUnexpectedError: where an error answered with a bare 500 goes, with the request id.
    public init?(
        configuration: MailTMConfiguration, accounts: MailboxAccountService, mail: MailStore,
        clock: @escaping @Sendable () -> Int64, monotonicClock: MonotonicClock = .system,
        onUnexpectedError: UnexpectedErrorReporter? = nil
    ) {
        guard let basePath = configuration.basePath else { return nil }
        self.configuration = configuration
        self.basePath = basePath
        self.domains = configuration.domains ?? accounts.configuration.domains
        self.accounts = accounts
        self.mail = mail
        self.clock = clock
        self.startedAt = clock()
        let rate = configuration.rate.share(among: configuration.instances)
        self.middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) { _ in rate }
                : nil,
            tooManyRequests: { _, _ in MailTMError.tooManyRequests.response },
            failure: { error in
                let (answer, report) = MailTMError.answer(for: error)
                return (answer.response, report)
            },
            onUnexpectedError: onUnexpectedError)
        self.mercureStreams = EventStreamLimiter(
            maxTotal: configuration.mercureStreams, maxPerKey: configuration.mercureStreamsPerClient)
    }

    /// Adds the surface's routes to `router`, literal segments before parameters.
    public func register(into router: inout ContextRouter) {
        let base = basePath, limit = configuration.bodyLimit
        router.add(.GET, base + "/domains", run(domainList))
        router.add(.GET, base + "/domains/{id}", run(domainDetail))
        router.add(.POST, base + "/accounts", bodyLimit: limit, run(createAccount))
        router.add(.POST, base + "/token", bodyLimit: limit, run(token))
        router.add(.GET, base + "/me", run(me))
        router.add(.GET, base + "/accounts/{id}", run(accountDetail))
        router.add(.DELETE, base + "/accounts/{id}", run(deleteAccount))
        router.add(.GET, base + "/messages", run(messageList))
        router.add(.GET, base + "/messages/{id}", run(messageDetail))
        router.add(.PATCH, base + "/messages/{id}", bodyLimit: limit, run(patchMessage))
        router.add(.DELETE, base + "/messages/{id}", run(deleteMessage))
        router.add(.GET, base + "/messages/{id}/download", run(download))
        router.add(.GET, base + "/messages/{id}/attachment/{attachment}", run(attachment))
        router.add(.GET, base + "/sources/{id}", run(source))
        // What one published client (mailtmapi 1.1) calls instead of the documented routes.
        router.add(.GET, base + "/messages/{id}/source", run(source))
        router.add(.PUT, base + "/messages/{id}/read", bodyLimit: limit, run(markRead))
        router.add(.GET, base + "/.well-known/mercure", .stream { [self] request, context, _, writer in
            Task { await mercure(request, context, writer) }
        })
    }

    /// The prefix of every path of the surface, for the responder's 404 and 405 in the surface's shape.
    public var pathPrefix: String { basePath + "/" }

    /// The 404 or 405 of a path under ``pathPrefix`` that no route takes.
    public func unmatchedResponse(_ status: HTTPStatus) -> HTTPResponse {
        (status == .methodNotAllowed ? MailTMError.methodNotAllowed : .notFound).response
    }

    /// A route's handler under the surface's middleware, in a task.
    private func run(
        _ handler: @escaping @Sendable (Call) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .deferred { [self] request, context, parameters in
            await middleware.run(.request, context) {
                try await handler(Call(request: request, parameters: parameters, now: clock()))
            }
        }
    }

    /// What a handler is given.
    struct Call: Sendable {
        let request: HTTPRequest
        let parameters: RouteParameters
        let now: Int64
        var id: String { parameters["id"] ?? "" }
    }
}
