import HTTP1
import JWT

extension AgentAuthService {
    /// The difficulty of the next challenge for `address`, counting this request (CONTRACT.md 1.2).
    public func nextDifficulty(for address: String, now: Int64) -> Int {
        guard policy.dynamic else { return policy.base }
        return policy.difficulty(recentChallenges: counter.record(address, now: now))
    }

    /// `POST /api/v1/challenge` (CONTRACT.md 1.1): a counter update and one HS256 signature, no I/O.
    func challenge(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock()
        let difficulty = nextDifficulty(for: request.remoteAddress, now: now)
        let id = Self.newTokenID()
        let expiresAt = now + configuration.challengeTTL
        let claims = JWTClaims([
            ("iss", .string(configuration.issuer)),
            ("jti", .string(id)),
            ("pur", .string(Purpose.challenge)),
            ("difficulty", .int(Int64(difficulty))),
            ("iat", .int(now)),
            ("exp", .int(expiresAt)),
        ])
        let token: String
        do {
            token = try keys.sign(claims, algorithm: .hs256)
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
