import HTTP1
import MailboxAccounts
import ServerKit

extension MailboxService {
    /// What a loop read gives its route, on the loop: the response, or the surface's error to answer; any other error
    /// (the storage's: a connection lost in a failover) sends the request `deferred`'s way, in a task, whose read
    /// goes through the pool.
    package typealias LoopAnswer = (Result<HTTPResponse, any Error>) -> Void

    /// As `deferred`, for a route whose answer to a mailbox token is one point read (`GET /api/accounts/{id}`): with
    /// loop reads on (PostgreSQL, `POSTERN_POSTGRES_LOOP_READS`), the event loop that read the request checks the token,
    /// charges the rate limit, sends the read (`onLoop`) and goes on serving its other sockets; when PostgreSQL has
    /// answered, the loop makes and writes the response. No thread waits for the round trip.
    ///
    /// Anything else goes `handler`'s way in a task, as `deferred` does: another bearer (a Pro token may need an
    /// API token's lookup and write), a read the loop could not send (`onLoop` false: its connections not open yet, or
    /// too many reads waiting), and a read that failed for the storage (a connection lost in a failover, which the
    /// pool rides out by reconnecting); charged once either way. On SQLite, and with loop reads off, it is `deferred`.
    package func loopRead(
        _ policy: MailboxRatePolicy,
        onLoop: @escaping @Sendable (MailboxCall, _ subject: String, _ version: Int64, _ answer: @escaping LoopAnswer)
            -> Bool,
        _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        let fallback = deferred(policy, handler)
        guard store.readsOnLoops, policy == .general, case .deferred(let later) = fallback else { return fallback }
        return .completing { [self] request, context, parameters, completion in
            let bearer = authorizer.classify(request.bearerToken)
            guard case .mailbox(let subject, let version) = bearer else {
                Task { completion(await later(request, context, parameters)) }
                return
            }
            let call = MailboxCall(request: request, context: context, parameters: parameters, bearer: bearer, now: clock())
            let rateClass = rateClass(policy, bearer)
            let decision = middleware.charge(rateClass, context)
            if let decision, !decision.allowed { return completion(middleware.refusal(rateClass, decision)) }
            let inTask: @Sendable () -> Void = { [self] in
                Task { completion(middleware.finish(await answer(call, handler), decision)) }
            }
            let sent = onLoop(call, subject, version) { [self] outcome in
                switch outcome {
                case .success(let response): completion(middleware.finish(response, decision))
                case .failure(let error as MailboxError): completion(middleware.finish(middleware.answer(error, context), decision))
                case .failure: inTask()
                }
            }
            if !sent { inTask() }
        }
    }
}
