import HTTP1

/// What every surface does around a route's handler, in one shape: charge the client's rate limit (IPv6 per /64),
/// refuse with the surface's 429 and `Retry-After`, run the handler, turn what it throws into the surface's error
/// (reporting an unforeseen one with the request id), and finish the response with what the surface adds to every
/// answer.
///
/// The surfaces differ only in the closures, each rendering its own documented error shape; a surface whose charge
/// depends on the request (Mail.td's bearer classes) calls the steps one by one.
public final class SurfaceMiddleware<RateClass: Hashable & Sendable>: Sendable {
    /// The surface's buckets; nil when rate limits are off.
    public let limiter: RateLimitTable<RateClass>?
    private let rejected: @Sendable (RateClass) -> Void
    private let tooManyRequests: @Sendable (RateClass, RateLimitDecision) -> HTTPResponse
    private let failure: @Sendable (any Error) -> (response: HTTPResponse, report: Bool)
    private let finishing: @Sendable (HTTPResponse, RateLimitDecision?) -> HTTPResponse
    private let onUnexpectedError: (@Sendable (any Error, String) -> Void)?

    /// Creates the middleware of one surface.
    /// - Parameters:
    ///   - limiter: the surface's buckets; nil when rate limits are off.
    ///   - rejected: counts a refused request of a class (the surface's Prometheus counter).
    ///   - tooManyRequests: the surface's 429 body for a class (the middleware adds `Retry-After`).
    ///   - failure: the surface's answer for a thrown error, and whether the error is one to report.
    ///   - finish: what the surface adds to every answer, refusals included (by default nothing).
    ///   - onUnexpectedError: where a reported error goes, with the request id.
    public init(
        limiter: RateLimitTable<RateClass>?,
        rejected: @escaping @Sendable (RateClass) -> Void = { _ in },
        tooManyRequests: @escaping @Sendable (RateClass, RateLimitDecision) -> HTTPResponse,
        failure: @escaping @Sendable (any Error) -> (response: HTTPResponse, report: Bool),
        finish: @escaping @Sendable (HTTPResponse, RateLimitDecision?) -> HTTPResponse = { response, _ in response },
        onUnexpectedError: (@Sendable (any Error, String) -> Void)?
    ) {
        self.limiter = limiter
        self.rejected = rejected
        self.tooManyRequests = tooManyRequests
        self.failure = failure
        self.finishing = finish
        self.onUnexpectedError = onUnexpectedError
    }

    /// Takes `cost` tokens of `rateClass` for the context's client; nil when rate limits are off. A refusal is
    /// counted.
    public func charge(_ rateClass: RateClass, _ context: RequestContext, cost: Int = 1) -> RateLimitDecision? {
        guard let decision = limiter?.take(rateClass, for: context.clientKey, cost: cost) else { return nil }
        if !decision.allowed { rejected(rateClass) }
        return decision
    }

    /// The surface's 429 for a refused `decision`, with `Retry-After`, finished.
    public func refusal(_ rateClass: RateClass, _ decision: RateLimitDecision) -> HTTPResponse {
        var response = tooManyRequests(rateClass, decision)
        response.headers.setRetryAfter(decision)
        return finishing(response, decision)
    }

    /// The surface's answer for `error`; one the surface's table says to report goes to `onUnexpectedError`.
    public func answer(_ error: any Error, _ context: RequestContext) -> HTTPResponse {
        let (response, report) = failure(error)
        if report { onUnexpectedError?(error, context.requestID) }
        return response
    }

    /// `response` with what the surface adds to every answer.
    public func finish(_ response: HTTPResponse, _ decision: RateLimitDecision?) -> HTTPResponse {
        finishing(response, decision)
    }

    /// Charges `rateClass`, then runs `handler` and answers what it throws; every answer finished.
    public func run(
        _ rateClass: RateClass, _ context: RequestContext, _ handler: () async throws -> HTTPResponse
    ) async -> HTTPResponse {
        let decision = charge(rateClass, context)
        if let decision, !decision.allowed { return refusal(rateClass, decision) }
        do {
            return finish(try await handler(), decision)
        } catch {
            return finish(answer(error, context), decision)
        }
    }

    /// As `run`, for a handler that answers through a completion (``ContextRouteHandler/completing(_:)``): charges
    /// `rateClass` at once, then lets `handler` answer through the completion it is given, which finishes the answer
    /// and hands it to `completion`.
    public func runCompleting(
        _ rateClass: RateClass, _ context: RequestContext,
        _ completion: @escaping @Sendable (HTTPResponse) -> Void,
        _ handler: (_ answer: @escaping @Sendable (HTTPResponse) -> Void) -> Void
    ) {
        let decision = charge(rateClass, context)
        if let decision, !decision.allowed { return completion(refusal(rateClass, decision)) }
        handler { [self] response in completion(finish(response, decision)) }
    }

    /// As `run`, inline on the connection's queue (cheap, non-blocking handlers).
    public func runNow(
        _ rateClass: RateClass, _ context: RequestContext, _ handler: () throws -> HTTPResponse
    ) -> HTTPResponse {
        let decision = charge(rateClass, context)
        if let decision, !decision.allowed { return refusal(rateClass, decision) }
        do {
            return finish(try handler(), decision)
        } catch {
            return finish(answer(error, context), decision)
        }
    }
}
