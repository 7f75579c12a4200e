import ComputePool
import HTTP1
import Storage

extension MailboxService {
    /// What every route shares, before and after its handler: bearer classification, rate limit, error
    /// mapping and `Cache-Control: no-store`.
    func immediate(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) throws -> HTTPResponse
    ) -> RouteHandler {
        .immediate { [self] request, parameters in
            let (call, decision) = prepare(request, parameters, policy)
            if let decision, !decision.allowed { return refusal(decision) }
            let response: HTTPResponse
            do {
                response = try handler(call)
            } catch {
                response = answer(error, request)
            }
            return finish(response, decision)
        }
    }

    /// As `immediate`, for handlers that await the database or the worker pool.
    func deferred(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> RouteHandler {
        .deferred { [self] request, parameters in
            let (call, decision) = prepare(request, parameters, policy)
            if let decision, !decision.allowed { return refusal(decision) }
            let response: HTTPResponse
            do {
                response = try await handler(call)
            } catch {
                response = answer(error, request)
            }
            return finish(response, decision)
        }
    }

    /// The answer for a thrown error; an unexpected one is also reported to `onUnexpectedError`.
    private func answer(_ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        let mapped = Self.mailboxError(error)
        if mapped == .internalError { onUnexpectedError?(error, request.requestID) }
        return MailboxJSON.response(mapped)
    }

    /// Maps any thrown error to the answer the client gets.
    static func mailboxError(_ error: any Error) -> MailboxError {
        switch error {
        case let error as MailboxError: return error
        case WorkerPoolError.overloaded: return .serviceUnavailable
        case let error as StorageError where error.isUnavailable: return .serviceUnavailable
        default: return .internalError
        }
    }

    private func prepare(_ request: HTTPRequest, _ parameters: RouteParameters, _ policy: MailboxRatePolicy)
        -> (MailboxCall, RateLimitDecision?)
    {
        let bearer = authorizer.classify(request.bearerToken)
        let call = MailboxCall(request: request, parameters: parameters, bearer: bearer, now: clock())
        guard configuration.rateLimitsEnabled else { return (call, nil) }
        let rateClass: MailboxRateClass
        switch (policy, bearer) {
        case (.accountCreation, _): rateClass = bearer.claimsPro ? .proAccountCreation : .freeAccountCreation
        case (.general, .mailbox): rateClass = .freeAuthenticated
        case (.general, _): rateClass = bearer.claimsPro ? .pro : .publicRequests
        }
        let decision = limiter.take(rateClass, client: clientKey(request), nowMillis: millisecondClock())
        if !decision.allowed {
            metrics.rejected(rateClass)
        }
        return (call, decision)
    }

    /// The bytes a client is counted by: its address's rate-limit key (IPv6 per /64), or the raw peer
    /// text when it is not an address.
    func clientKey(_ request: HTTPRequest) -> [UInt8] {
        let forwarded = request.headers.values("X-Forwarded-For")
        let address = resolver.resolve(peer: request.remoteAddress, forwardedFor: forwarded)
        return address?.rateLimitKey ?? Array(request.remoteAddress.utf8)
    }

    private func refusal(_ decision: RateLimitDecision) -> HTTPResponse {
        var response = MailboxJSON.response(.rateLimitExceeded)
        response.headers.replaceOrAdd("Retry-After", String(decision.retryAfterSeconds))
        return finish(response, decision)
    }

    private func finish(_ response: HTTPResponse, _ decision: RateLimitDecision?) -> HTTPResponse {
        var response = response
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        if let decision {
            response.headers.replaceOrAdd("RateLimit-Limit", String(decision.limit))
            response.headers.replaceOrAdd("RateLimit-Remaining", String(decision.remaining))
            response.headers.replaceOrAdd("RateLimit-Reset", String(decision.resetSeconds))
        }
        return response
    }
}
