import ComputePool
import Directory
import HTTP1
import JWT
import ServerKit

extension AgentAuthService {
    /// `POST /api/v1/capability` (CONTRACT.md 1.4): a session JWT of a live account buys a short-lived
    /// RS256 capability JWT, signed on the worker pool.
    ///
    /// Called on the event loop, answers through `answer`: the session JWT (HS256, a few microseconds) is checked
    /// there, then the liveness read and the signature run in one worker job, whose completion answers from the
    /// worker thread. No Swift concurrency task stands between the loop and the pool (see
    /// ``ContextRouteHandler/completing(_:)``). The read goes through a reader's serial queue from the worker
    /// thread (`readSync`), which saves the two thread hops of an async read (to the reader queue and back).
    func capability(
        _ request: HTTPRequest, _ context: RequestContext, answer: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let now = clock()
        guard let token = request.bearerToken,
            let claims = try? keys.verify(token, policy: sessionPolicy, now: now, leeway: Self.leeway),
            let accountID = claims.sub, let issuedAt = claims.iat
        else { return answer(failure(.invalidSession)) }
        pool.submit(.signing) { [self] () throws -> String? in
            guard let account = try accounts.liveAccountBlocking(id: accountID),
                account.acceptsSession(issuedAt: issuedAt)
            else { return nil }
            let claims = CapabilityClaims(accountID: account.id, inbox: inbox(of: account)).claims(
                issuer: configuration.issuer, audience: configuration.audience, issuedAt: now,
                ttl: configuration.capabilityTTL, jti: Self.newTokenID())
            return try keys.sign(claims, for: CapabilityClaims.purpose)
        } completion: { [self] result in
            switch result {
            case .success(let capability?):
                metrics.capabilities.increment()
                answer(AgentResponse.json(.ok, capabilityBody, bearer: capability))
            case .success(nil):
                answer(failure(.invalidSession))
            case .failure(WorkerPoolError.overloaded):
                answer(failure(.overloaded))
            case .failure(let error):
                // A storage error maps to 503 when the database is unavailable; a signing error to 500.
                answer(failure(unforeseen: error, context))
            }
        }
    }
}
