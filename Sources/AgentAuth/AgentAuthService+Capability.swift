import ComputePool
import Directory
import HTTP1
import JWT
import ServerKit

extension AgentAuthService {
    /// `POST /api/v1/capability` (CONTRACT.md 1.4) as short work, run to completion on the event loop that read the
    /// request: the session JWT's HS256 check, the account's liveness read on the loop thread's own SQLite connection
    /// and the RS256 signature (about 250 µs), the answer written from the loop. No thread is woken. For a database
    /// whose reads are round trips (PostgreSQL) the route is ``capability(_:_:answer:)`` on the worker pool instead.
    func capabilityNow(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let now = clock()
        guard let token = request.bearerToken,
            let claims = try? keys.verify(token, policy: sessionPolicy, now: now, leeway: Self.leeway),
            let accountID = claims.sub, let issuedAt = claims.iat,
            let account = try accounts.liveAccountOnCallingThread(id: accountID),
            account.acceptsSession(issuedAt: issuedAt)
        else { return failure(.invalidSession) }
        let capability = try keys.sign(capabilityClaims(account, now: now), for: CapabilityClaims.purpose)
        metrics.capabilities.increment()
        return AgentResponse.json(.ok, capabilityBody, bearer: capability)
    }

    /// The claims of a capability for `account`, issued at `now`.
    private func capabilityClaims(_ account: AgentAccount, now: Int64) -> JWTClaims {
        CapabilityClaims(accountID: account.id, inbox: inbox(of: account)).claims(
            issuer: configuration.issuer, audience: configuration.audience, issuedAt: now,
            ttl: configuration.capabilityTTL, jti: Self.newTokenID())
    }

    /// `POST /api/v1/capability` (CONTRACT.md 1.4) on a database whose reads are round trips (PostgreSQL): a session
    /// JWT of a live account buys a short-lived RS256 capability JWT, signed on the worker pool.
    ///
    /// Called on the event loop, answers through `answer`: the session JWT (HS256, a few microseconds) is checked
    /// there. With PostgreSQL's loop reads on (`POSTERN_POSTGRES_LOOP_READS`), the liveness read is sent from the loop,
    /// which serves its other sockets meanwhile, and the signature alone goes to the worker pool when the answer came:
    /// no thread waits for the round trip. Otherwise (or when the loop cannot send the read, or its connection was lost
    /// under it) the read and the signature run in one worker job, the read through a reader's serial queue from the
    /// worker thread (`readSync`). Either way the job's completion answers from the worker thread, and no Swift
    /// concurrency task stands between the loop, the pool and the answer (``ContextRouteHandler/completing(_:)``).
    func capability(
        _ request: HTTPRequest, _ context: RequestContext, answer: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let now = clock()
        guard let token = request.bearerToken,
            let claims = try? keys.verify(token, policy: sessionPolicy, now: now, leeway: Self.leeway),
            let accountID = claims.sub, let issuedAt = claims.iat
        else { return answer(failure(.invalidSession)) }
        let blocking: @Sendable () throws -> AgentAccount? = { [accounts] in
            try accounts.liveAccountBlocking(id: accountID)
        }
        let sent = accounts.liveAccount(id: accountID) { [self] read in
            switch read {
            case .success(let account): sign(read: { account }, issuedAt: issuedAt, now: now, context, answer: answer)
            case .failure: sign(read: blocking, issuedAt: issuedAt, now: now, context, answer: answer)
            }
        }
        if !sent { sign(read: blocking, issuedAt: issuedAt, now: now, context, answer: answer) }
    }

    /// Reads the account (`read`, on the worker) and signs its capability in one worker job, answering from there.
    private func sign(
        read: @escaping @Sendable () throws -> AgentAccount?, issuedAt: Int64, now: Int64, _ context: RequestContext,
        answer: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        pool.submit(.signing) { [self] () throws -> String? in
            guard let account = try read(), account.acceptsSession(issuedAt: issuedAt) else { return nil }
            return try keys.sign(capabilityClaims(account, now: now), for: CapabilityClaims.purpose)
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
