import MailboxAccounts
import ComputePool
import HTTP1
import ServerKit

extension MailboxService {
    /// What every route shares, before and after its handler: bearer classification, rate limit, error
    /// mapping and `Cache-Control: no-store` (the surface's ``SurfaceMiddleware``).
    ///
    /// An immediate route cannot look a Pro API token up, so such a bearer is charged as public there
    /// (`/api/domains`, `/api/challenge`: neither needs a token).
    public func immediate(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .immediate { [self] request, context, parameters in
            let bearer = authorizer.classify(request.bearerToken)
            let call = MailboxCall(
                request: request, context: context, parameters: parameters, bearer: bearer, now: clock())
            return middleware.runNow(rateClass(policy, call.bearer), context) { try handler(call) }
        }
    }

    /// As `immediate`, for handlers that await the database or the worker pool; a Pro API token is
    /// looked up before its class is chosen (`admit`).
    public func deferred(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        .deferred { [self] request, context, parameters in
            var decision: RateLimitDecision?
            var bearer = MailboxBearer.anonymous
            let response: HTTPResponse
            do {
                let (call, rateClass, charged) = try await admit(request, context, parameters, policy)
                (bearer, decision) = (call.bearer, charged)
                if let decision, !decision.allowed { return middleware.refusal(rateClass, decision) }
                response = await answer(call, handler)
            } catch {
                response = middleware.answer(error, context)
            }
            // A free creation refused as malformed (400) gives its one-per-8-seconds token back.
            if policy == .accountCreation, response.status.code == 400, !bearer.earnsPro, decision?.allowed == true {
                middleware.limiter?.giveBack(.freeAccountCreation, for: context.clientKey)
            }
            return middleware.finish(response, decision)
        }
    }

    /// `handler`'s response to `call`, or the answer to the error it threw.
    func answer(
        _ call: MailboxCall, _ handler: @Sendable (MailboxCall) async throws -> HTTPResponse
    ) async -> HTTPResponse {
        do {
            return try await handler(call)
        } catch {
            return middleware.answer(error, call.context)
        }
    }

    /// Classifies the bearer and charges the rate limit. A `tm_pro_` bearer is first charged to the Pro
    /// class, which bounds the lookups one client can cause to the Pro rate; then its digest is looked up.
    /// A live token of an active user keeps that charge; anything else becomes `.invalid` and is charged
    /// again as public or free account creation, as an anonymous client would be, so writing `tm_pro_`
    /// in front of garbage buys nothing.
    private func admit(
        _ request: HTTPRequest, _ context: RequestContext, _ parameters: RouteParameters, _ policy: MailboxRatePolicy
    ) async throws -> (MailboxCall, MailboxRateClass, RateLimitDecision?) {
        var bearer = authorizer.classify(request.bearerToken)
        let now = clock()
        func call() -> MailboxCall {
            MailboxCall(request: request, context: context, parameters: parameters, bearer: bearer, now: now)
        }
        if case .apiToken(let token) = bearer {
            let proClass: MailboxRateClass = policy == .accountCreation ? .proAccountCreation : .pro
            let claimed = middleware.charge(proClass, context)
            if let claimed, !claimed.allowed { return (call(), proClass, claimed) }
            if let (record, user) = try await authorizer.verify(apiToken: token) {
                bearer = .verifiedAPIToken(record, user)
                return (call(), proClass, claimed)
            }
            bearer = .invalid
        }
        let rateClass = rateClass(policy, bearer)
        return (call(), rateClass, middleware.charge(rateClass, context))
    }

    /// The class a bearer is charged to: Pro only for a signed Pro JWT or a verified API token.
    func rateClass(_ policy: MailboxRatePolicy, _ bearer: MailboxBearer) -> MailboxRateClass {
        switch (policy, bearer) {
        case (.accountCreation, _): bearer.earnsPro ? .proAccountCreation : .freeAccountCreation
        case (.general, .mailbox): .freeAuthenticated
        case (.general, _): bearer.earnsPro ? .pro : .publicRequests
        }
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
}
