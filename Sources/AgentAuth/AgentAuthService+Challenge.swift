import ClientAddress
import HTTP1
import JWT
import ServerKit

extension AgentAuthService {
    /// The difficulty of the next challenge for `client`, counting this request (CONTRACT.md 1.2), in the
    /// window of the service's monotonic clock. The client is resolved only when the difficulty is dynamic.
    public func nextDifficulty(for client: @autoclosure () -> ClientAddressKey) -> Int {
        guard let counter else { return policy.base }
        return policy.difficulty(recentChallenges: counter.record(client()) * max(1, configuration.instances))
    }

    /// `POST /api/v1/challenge` (CONTRACT.md 1.1): a counter update and one HS256 signature, no I/O.
    func challenge(_ context: RequestContext) -> HTTPResponse {
        let now = clock()
        let difficulty = nextDifficulty(for: context.clientKey)
        let id = Self.newTokenID()
        let expiresAt = now + configuration.challengeTTL
        var claims = JWTClaims(
            issuer: configuration.issuer, purpose: .challenge, issuedAt: now, ttl: configuration.challengeTTL,
            jti: id)
        claims["difficulty"] = .int(Int64(difficulty))
        let token: String
        do {
            token = try keys.sign(claims, for: .challenge)
        } catch {
            return failure(.internalError)
        }
        metrics.challenges.increment()
        metrics.currentDifficulty.record(difficulty)
        if difficulty > policy.base { metrics.raised.increment() }
        return AgentResponse.json(
            .ok, challengeBody.render(id: id, difficulty: difficulty, expiresAt: expiresAt), bearer: token)
    }
}
