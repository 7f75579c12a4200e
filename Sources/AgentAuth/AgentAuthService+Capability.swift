import ComputePool
import HTTP1
import JWT

extension AgentAuthService {
    /// `POST /api/v1/capability` (CONTRACT.md 1.4): a session JWT of a live account buys a short-lived
    /// RS256 capability JWT, signed on the worker pool.
    func capability(_ request: HTTPRequest) async -> HTTPResponse {
        let now = clock()
        guard let token = request.bearerToken,
            let claims = try? keys.verify(
                token, purpose: Purpose.session, issuer: configuration.issuer, now: now, leeway: Self.leeway),
            let accountID = claims.sub
        else { return failure(.invalidSession) }
        let account: AgentAccount?
        do {
            account = try await accounts.liveAccount(id: accountID)
        } catch {
            return failure(Self.storageFailure(error))
        }
        guard let account else { return failure(.invalidSession) }
        let ttl = configuration.capabilityTTL
        var capabilityClaims = JWTClaims(
            issuer: configuration.issuer, subject: account.id, purpose: Purpose.capability, issuedAt: now, ttl: ttl,
            jti: Self.newTokenID())
        capabilityClaims["aud"] = .string(configuration.audience)
        capabilityClaims["inboxId"] = .string(inbox(of: account))
        capabilityClaims["scope"] = .string("jmap")
        let keys = self.keys
        let capability: String
        do {
            let signedClaims = capabilityClaims
            capability = try await pool.run { try keys.sign(signedClaims, algorithm: .rs256) }
        } catch WorkerPoolError.overloaded {
            return failure(.overloaded)
        } catch {
            return failure(.internalError)
        }
        metrics.capabilities.increment()
        return AgentResponse.json(.ok, capabilityBody, bearer: capability)
    }
}
