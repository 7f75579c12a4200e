import HTTP1
import Metrics
import ServerKit

/// The one middleware of the browser pages, shared by every family of them that people sign in to (the owner pages and
/// the web inbox with its Pro dashboard): one page budget per client address (IPv6 per /64) across all of them, the
/// same 429 page with `Retry-After`, the same 503 page with `Retry-After` while the database cannot answer, and the
/// same 500 page for any other error nothing else answered (reported with the request id). The runtime builds one and
/// hands it to each family; a family standing alone (a test's) builds its own.
public final class PageRoutes: Sendable {
    /// What a stream route's handler gets: the request, its context and path parameters, and the writer.
    public typealias StreamHandler =
        @Sendable (HTTPRequest, RequestContext, RouteParameters, any HTTPResponseWriter) async throws -> Void

    enum RateClass: Hashable, Sendable { case page }
    private let middleware: SurfaceMiddleware<RateClass>

    /// The page 429's words: the client waits, nothing is wrong with their account.
    public static let tooManyRequestsMessage = "Too many requests from your address. Please wait a moment."
    /// The page 500's words: nothing about what failed.
    public static let internalErrorMessage = "Something went wrong on our side. Please try again."
    /// The page 503's words, when the database cannot answer for a moment (a failover, a full disk).
    public static let unavailableMessage = "The service is briefly unavailable. Please try again in a moment."
    /// The page 503's `Retry-After`, in seconds: as the mailbox API's and the remote-hash pages'.
    static var unavailableRetryAfter: Int { 1 }

    /// - Parameters:
    ///   - requestsPerMinute: each client address's budget of page requests, across every family (refilled
    ///     continuously); shared out among `instances`.
    ///   - instances: how many instances share the database (each allows its share of the budget).
    ///   - tableCapacity: how many client addresses the buckets remember.
    ///   - enabled: false takes no budget at all (`POSTERN_RATE_LIMITS=off`).
    ///   - monotonicClock: what the buckets refill by.
    ///   - metricsFactory: where `postern_rate_limit_rejections_total{surface="owners",class="page"}` goes (the name
    ///     these pages have always counted under); nil uses `MetricsSystem.factory`.
    ///   - onUnexpectedError: told about any error answered with the 500 page, with the request id.
    public init(
        requestsPerMinute: Int, instances: Int = 1, tableCapacity: Int, enabled: Bool = true,
        monotonicClock: MonotonicClock = .system, metricsFactory: (any MetricsFactory)? = nil,
        onUnexpectedError: UnexpectedErrorReporter? = nil
    ) {
        let rejections = Counter(
            label: "postern_rate_limit_rejections_total", dimensions: [("surface", "owners"), ("class", "page")],
            factory: metricsFactory ?? MetricsSystem.factory)
        let rate = TokenBucketRate(requests: requestsPerMinute, perSeconds: 60).share(among: instances)
        middleware = SurfaceMiddleware(
            limiter: enabled ? RateLimitTable(capacity: tableCapacity, clock: monotonicClock) { _ in rate } : nil,
            rejected: { _ in rejections.increment() },
            tooManyRequests: { _, _ in
                BrowserPage.message(.tooManyRequests, "Too many requests", Self.tooManyRequestsMessage)
            },
            failure: { error in
                // The shared table: a database that cannot answer now is the store's state, a 503 with
                // `Retry-After` as at every other door (issue 73), not a defect to log.
                switch ServiceFailure(error) {
                case .unavailable:
                    var page = BrowserPage.message(.serviceUnavailable, "Try again shortly", Self.unavailableMessage)
                    page.headers.setRetryAfter(seconds: Self.unavailableRetryAfter)
                    return (page, false)
                case .internalError:
                    return (
                        BrowserPage.message(.internalServerError, "Something went wrong", Self.internalErrorMessage),
                        true
                    )
                }
            },
            onUnexpectedError: onUnexpectedError)
    }

    /// A route through the pages' middleware (rate limit, error page).
    public func limited(
        _ handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .deferred { [middleware] request, context, _ in
            await middleware.run(.page, context) { try await handler(request, context) }
        }
    }

    /// A route through the pages' middleware whose handler reads the path's parameters.
    public func limitedRoute(
        _ handler: @escaping @Sendable (HTTPRequest, RequestContext, RouteParameters) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .deferred { [middleware] request, context, parameters in
            await middleware.run(.page, context) { try await handler(request, context, parameters) }
        }
    }

    /// A stream route (`text/event-stream`) through the pages' middleware: the rate limit is charged as a page's, and
    /// an error `handler` throws is answered with the error page. `handler` runs in a task cancelled when the stream
    /// ends; it opens the stream on the writer, or answers with a complete response. Once it has opened, it finishes
    /// the writer before it throws: the error is then reported, and its page goes nowhere.
    public func limitedStream(_ handler: @escaping StreamHandler) -> ContextRouteHandler {
        .stream { [middleware] request, context, parameters, writer in
            let task = Task {
                let decision = middleware.charge(.page, context)
                if let decision, !decision.allowed { return writer.respond(middleware.refusal(.page, decision)) }
                do {
                    try await handler(request, context, parameters, writer)
                } catch {
                    writer.respond(middleware.finish(middleware.answer(error, context), decision))
                }
            }
            writer.onEnd { task.cancel() }
        }
    }
}
