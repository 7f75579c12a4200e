import ComputePool
import HTTP1
import ServerKit

extension MailboxService {
    /// What every route shares, before and after its handler: bearer classification, rate limit, error
    /// mapping and `Cache-Control: no-store`.
    ///
    /// An immediate route cannot look a Pro API token up, so such a bearer is charged as public there
    /// (`/api/domains`, `/api/challenge`: neither needs a token).
    func immediate(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .immediate { [self] request, context, parameters in
            let bearer = authorizer.classify(request.bearerToken)
            let call = MailboxCall(
                request: request, context: context, parameters: parameters, bearer: bearer, now: clock())
            let decision = charge(rateClass(policy, call.bearer), context)
            if let decision, !decision.allowed { return refusal(decision) }
            let response: HTTPResponse
            do {
                response = try handler(call)
            } catch {
                response = answer(error, context)
            }
            return finish(response, decision)
        }
    }

    /// As `immediate`, for handlers that await the database or the worker pool; a Pro API token is
    /// looked up before its class is chosen (`admit`).
    func deferred(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .deferred { [self] request, context, parameters in
            var decision: RateLimitDecision?
            var bearer = MailboxBearer.anonymous
            let response: HTTPResponse
            do {
                let call: MailboxCall
                (call, decision) = try await admit(request, context, parameters, policy)
                bearer = call.bearer
                if let decision, !decision.allowed { return refusal(decision) }
                response = try await handler(call)
            } catch {
                response = answer(error, context)
            }
            // A free creation refused as malformed (400) gives its one-per-8-seconds token back.
            if policy == .accountCreation, response.status.code == 400, !bearer.earnsPro, decision?.allowed == true {
                limiter?.giveBack(.freeAccountCreation, for: context.clientKey)
            }
            return finish(response, decision)
        }
    }

    /// Classifies the bearer and charges the rate limit. A `tm_pro_` bearer is first charged to the Pro
    /// class, which bounds the lookups one client can cause to the Pro rate; then its digest is looked up.
    /// A live token of an active user keeps that charge; anything else becomes `.invalid` and is charged
    /// again as public or free account creation, as an anonymous client would be, so writing `tm_pro_`
    /// in front of garbage buys nothing.
    private func admit(
        _ request: HTTPRequest, _ context: RequestContext, _ parameters: RouteParameters, _ policy: MailboxRatePolicy
    ) async throws -> (MailboxCall, RateLimitDecision?) {
        var bearer = authorizer.classify(request.bearerToken)
        let now = clock()
        func call() -> MailboxCall {
            MailboxCall(request: request, context: context, parameters: parameters, bearer: bearer, now: now)
        }
        if case .apiToken(let token) = bearer {
            let claimed = charge(policy == .accountCreation ? .proAccountCreation : .pro, context)
            if let claimed, !claimed.allowed { return (call(), claimed) }
            if let (record, user) = try await authorizer.verify(apiToken: token) {
                bearer = .verifiedAPIToken(record, user)
                return (call(), claimed)
            }
            bearer = .invalid
        }
        return (call(), charge(rateClass(policy, bearer), context))
    }

    /// The class a bearer is charged to: Pro only for a signed Pro JWT or a verified API token.
    private func rateClass(_ policy: MailboxRatePolicy, _ bearer: MailboxBearer) -> MailboxRateClass {
        switch (policy, bearer) {
        case (.accountCreation, _): bearer.earnsPro ? .proAccountCreation : .freeAccountCreation
        case (.general, .mailbox): .freeAuthenticated
        case (.general, _): bearer.earnsPro ? .pro : .publicRequests
        }
    }

    /// Takes a token of `rateClass` for the request's client; nil when rate limits are off.
    private func charge(_ rateClass: MailboxRateClass, _ context: RequestContext) -> RateLimitDecision? {
        guard let decision = limiter?.take(rateClass, for: context.clientKey) else { return nil }
        if !decision.allowed { metrics.rejected(rateClass) }
        return decision
    }

    /// The answer for a thrown error; one the shared table says to log is reported to `onUnexpectedError`.
    private func answer(_ error: any Error, _ context: RequestContext) -> HTTPResponse {
        let (answer, report) = Self.mailboxError(error)
        if report { onUnexpectedError?(error, context.requestID) }
        return MailboxJSON.response(answer)
    }

    /// The answer the client gets for any thrown error, and whether to report it: the surface's own
    /// errors and a full pool as they are, anything else through the shared ``ServiceFailure`` table.
    static func mailboxError(_ error: any Error) -> (answer: MailboxError, report: Bool) {
        switch error {
        case let error as MailboxError: return (error, false)
        case WorkerPoolError.overloaded: return (.serviceUnavailable, false)
        default:
            let failure = ServiceFailure(error)
            return (MailboxError(failure), failure.shouldLog)
        }
    }

    private func refusal(_ decision: RateLimitDecision) -> HTTPResponse {
        var response = MailboxJSON.response(.rateLimitExceeded)
        response.headers.setRetryAfter(decision)
        return finish(response, decision)
    }

    private func finish(_ response: HTTPResponse, _ decision: RateLimitDecision?) -> HTTPResponse {
        var response = response
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        if let decision { response.headers.setRateLimit(decision) }
        return response
    }
}
