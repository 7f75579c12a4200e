import AuthCrypto
import HTTP1
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import AgentAuth

/// Tokens with a valid signature by one of the server's own keys that are still not what the endpoint takes:
/// signed by the key of another purpose's algorithm, or living longer than the purpose's TTL (issue 32).
@Suite("Agent tokens: algorithm and lifetime of each purpose")
struct AgentTokenPolicyTests {
    /// Claims of a challenge of difficulty 0, valid from `now` until `lifetime` s later.
    static func challengeClaims(now: Int64, lifetime: Int64) -> JWTClaims {
        JWTClaims([
            ("iss", "https://issuer.test"), ("iat", .int(now)), ("exp", .int(now + lifetime)),
            ("jti", .string(SecureRandom.hex(byteCount: 16))), ("pur", "challenge"), ("difficulty", 0),
        ])
    }

    /// `POST /api/v1/session` with `challenge` and a proof that solves it.
    static func signup(_ harness: AgentHarness, _ challenge: String, _ username: String) async throws
        -> HTTPResponse
    {
        let id = try #require(try challengeID(challenge))
        let solution = try harness.solve(id, difficulty: 0)
        return await harness.send(
            .POST, "/api/v1/session", bearer: challenge,
            body: AgentHarness.sessionBody(solution, "username", username))
    }

    static func challengeID(_ token: String) throws -> String? {
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        return try JSONValue.parse(payload)["jti"]?.stringValue
    }

    @Test(
        "A challenge signed with the server's RSA key (RS256) is refused: challenges are HS256",
        arguments: StorageBackend.allCases)
    func challengeSignedWithRSA(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let claims = Self.challengeClaims(now: harness.clock.now, lifetime: 180)
        let control = try TestKeys.keySet.sign(claims, algorithm: .hs256)
        #expect(try await Self.signup(harness, control, "hsagent").status.code == 201)

        let rsa = try TestKeys.keySet.sign(
            Self.challengeClaims(now: harness.clock.now, lifetime: 180), algorithm: .rs256)
        expectError(try await Self.signup(harness, rsa, "rsagent"), .invalidChallenge)
    }

    @Test(
        "A challenge whose exp is further than the challenge TTL from its iat is refused",
        arguments: StorageBackend.allCases)
    func challengeLivingTooLong(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let longest = try TestKeys.keySet.sign(
            Self.challengeClaims(now: harness.clock.now, lifetime: 180), algorithm: .hs256)
        #expect(try await Self.signup(harness, longest, "ttlagent").status.code == 201)

        let tooLong = try TestKeys.keySet.sign(
            Self.challengeClaims(now: harness.clock.now, lifetime: 181), algorithm: .hs256)
        expectError(try await Self.signup(harness, tooLong, "longagent"), .invalidChallenge)
        let year = try TestKeys.keySet.sign(
            Self.challengeClaims(now: harness.clock.now, lifetime: 365 * 86_400), algorithm: .hs256)
        expectError(try await Self.signup(harness, year, "yearagent"), .invalidChallenge)
    }

    /// The claims of `session` as the server minted them, with `edit` applied.
    static func sessionClaims(_ session: String, _ edit: (inout JWTClaims) -> Void = { _ in }) throws -> JWTClaims {
        let payload = try #require(Base64URL.decode(String(session.split(separator: ".")[1])))
        var claims = JWTClaims(try #require(try JSONValue.parse(payload).objectValue))
        edit(&claims)
        return claims
    }

    @Test(
        "A session signed with the server's RSA key (RS256) is refused: sessions are HS256",
        arguments: StorageBackend.allCases)
    func sessionSignedWithRSA(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, session) = try await harness.signup("rsasession")
        let claims = try Self.sessionClaims(session)
        let resigned = try TestKeys.keySet.sign(claims, algorithm: .hs256)
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: resigned).status.code == 200)

        let rsa = try TestKeys.keySet.sign(claims, algorithm: .rs256)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: rsa), .invalidSession)
    }

    @Test(
        "A session whose exp is further than the session TTL from its iat is refused",
        arguments: StorageBackend.allCases)
    func sessionLivingTooLong(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, session) = try await harness.signup("longsession")
        let tooLong = try TestKeys.keySet.sign(
            try Self.sessionClaims(session) { $0["exp"] = .int(($0.iat ?? 0) + 3600 + 1) }, algorithm: .hs256)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: tooLong), .invalidSession)
        let decade = try TestKeys.keySet.sign(
            try Self.sessionClaims(session) { $0["exp"] = .int(($0.iat ?? 0) + 10 * 365 * 86_400) },
            algorithm: .hs256)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: decade), .invalidSession)
    }
}
