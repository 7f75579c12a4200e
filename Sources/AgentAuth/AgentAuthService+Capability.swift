import ComputePool
import Directory
import HTTP1
import JWT
import ServerKit

extension AgentAuthService {
    /// `POST /api/v1/capability` (CONTRACT.md 1.4): a session JWT of a live account buys a short-lived
    /// RS256 capability JWT, signed on the worker pool.
    func capability(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let now = clock()
        guard let token = request.bearerToken,
            let claims = try? keys.verify(token, policy: sessionPolicy, now: now, leeway: Self.leeway),
            let accountID = claims.sub, let issuedAt = claims.iat
        else { return failure(.invalidSession) }
        // The liveness read and the signature run in one worker job: the read goes through a
        // reader's serial queue from the worker thread (`readSync`), which saves the two thread hops
        // of an async read (to the reader queue and back) on every request.
        let capability: String?
        do {
            capability = try await pool.run(.signing) { [self] () throws -> String? in
                guard let account = try accounts.liveAccountBlocking(id: accountID),
                    account.acceptsSession(issuedAt: issuedAt)
                else { return nil }
                let claims = CapabilityClaims(accountID: account.id, inbox: inbox(of: account)).claims(
                    issuer: configuration.issuer, audience: configuration.audience, issuedAt: now,
                    ttl: configuration.capabilityTTL, jti: Self.newTokenID())
                return try keys.sign(claims, for: CapabilityClaims.purpose)
            }
        } catch WorkerPoolError.overloaded {
            return failure(.overloaded)
        } catch {
            // A storage error maps to 503 when the database is unavailable; a signing error to 500.
            return failure(unforeseen: error, context)
        }
        guard let capability else { return failure(.invalidSession) }
        metrics.capabilities.increment()
        return AgentResponse.json(.ok, capabilityBody, bearer: capability)
    }
}
