import AuthCrypto
import HTTP1
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import AgentAuth

@Suite("POST /api/v1/challenge")
struct AgentChallengeEndpointTests {
    @Test(
        "The challenge JWT is in the Authorization header and the body repeats what a client needs",
        arguments: StorageBackend.allCases)
    func challengeShape(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 3)
        let response = await harness.send(.POST, "/api/v1/challenge")
        #expect(response.status.code == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let token = try #require(response.bearer)
        let claims = try TestKeys.keySet.verify(
            token, policy: harness.service.challengePolicy, now: harness.clock.now)
        let jti = try #require(claims.jti)
        #expect(jti.count == 32 && AgentAuthService.isTokenID(jti))
        #expect(claims["difficulty"]?.intValue == 3)
        #expect(claims.iat == harness.clock.now)
        #expect(claims.exp == harness.clock.now + 180)
        let header = try JSONValue.parse(try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
        #expect(header["alg"]?.stringValue == "HS256")
        #expect(header["typ"]?.stringValue == "JWT")
        #expect(header["kid"]?.stringValue == "hs-test")

        let body = try response.json()
        #expect(
            body.objectValue?.map(\.0) == [
                "challenge", "difficulty", "algorithm", "scrypt", "salt", "expires_at", "_next",
            ])
        #expect(body["challenge"]?.stringValue == jti)
        #expect(body["difficulty"]?.intValue == 3)
        #expect(body["algorithm"]?.stringValue == "scrypt")
        #expect(body["scrypt"] == ["N": 16384, "r": 8, "p": 1, "dkLen": 64])
        #expect(body["salt"]?.stringValue == AgentAuthConfiguration.defaultPoWSalt)
        #expect(body["expires_at"]?.intValue == harness.clock.now + 180)
        #expect((body["_next"]?.arrayValue?.count ?? 0) > 0)
    }

    @Test("Every challenge has a new id", arguments: StorageBackend.allCases)
    func distinctIDs(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        var ids = Set<String>()
        for _ in 0..<50 {
            ids.insert(try await harness.challenge().id)
        }
        #expect(ids.count == 50)
    }

    @Test(
        "Dynamic difficulty rises per address beyond ten challenges a minute, capped, and falls back",
        arguments: StorageBackend.allCases)
    func dynamicDifficulty(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 2, maxDifficulty: 5, dynamic: true)
        var seen: [Int] = []
        for _ in 1...90 {
            seen.append(try await harness.challenge(remoteAddress: "198.51.100.1").difficulty)
        }
        #expect(seen[0..<10].allSatisfy { $0 == 2 })
        #expect(seen[10..<20].allSatisfy { $0 == 3 })
        #expect(seen[20..<40].allSatisfy { $0 == 4 })
        #expect(seen[40..<90].allSatisfy { $0 == 5 })
        #expect(try await harness.challenge(remoteAddress: "198.51.100.2").difficulty == 2)
        #expect(harness.service.currentBaseDifficulty == 2)
        harness.clock.advance(70)
        #expect(try await harness.challenge(remoteAddress: "198.51.100.1").difficulty == 2)
    }

    @Test(
        "One of two instances counts each challenge it issues twice: the raise comes at the client's tenth in all",
        arguments: StorageBackend.allCases)
    func dynamicDifficultyShared(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 2, maxDifficulty: 5, dynamic: true, instances: 2)
        var seen: [Int] = []
        for _ in 1...20 {
            seen.append(try await harness.challenge(remoteAddress: "198.51.100.1").difficulty)
        }
        #expect(seen[0..<5].allSatisfy { $0 == 2 })
        #expect(seen[5..<10].allSatisfy { $0 == 3 })
        #expect(seen[10..<20].allSatisfy { $0 == 4 })
    }

    @Test(
        "The dynamic-difficulty window runs on the monotonic clock: wall-clock steps neither reset nor stretch it",
        arguments: StorageBackend.allCases)
    func difficultyWindowIgnoresWallClockSteps(_ backend: StorageBackend) async throws {
        let wall = TestClock()
        let monotonic = TestClock(0)
        let harness = try AgentHarness(
            backend, difficulty: 2, maxDifficulty: 5, dynamic: true, clock: wall, monotonic: monotonic)
        for _ in 1...40 { _ = try await harness.challenge(remoteAddress: "198.51.100.7") }
        // The wall clock jumps ten minutes ahead: the client asked 40 times within a minute all the same.
        wall.advance(600)
        #expect(try await harness.challenge(remoteAddress: "198.51.100.7").difficulty == 5)
        // And ten minutes back: once a minute has really passed, the client is back to the base.
        wall.advance(-600)
        monotonic.advance(70)
        #expect(try await harness.challenge(remoteAddress: "198.51.100.7").difficulty == 2)
    }

    @Test("With dynamic difficulty off every challenge has the base difficulty", arguments: StorageBackend.allCases)
    func dynamicOff(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 1, dynamic: false)
        for _ in 0..<40 {
            #expect(try await harness.challenge().difficulty == 1)
        }
    }

    @Test(
        "Routes: challenge immediate, session deferred, capability short on SQLite (run on the loop) and completing on PostgreSQL (no task between loop and pool)",
        arguments: StorageBackend.allCases)
    func routes(_ backend: StorageBackend) throws {
        let harness = try AgentHarness(backend)
        func kind(_ method: HTTPMethod, _ path: String) -> String {
            guard case .found(let route, _) = harness.router.match(method: method, path: path) else { return "none" }
            switch route.handler {
            case .immediate: return "immediate"
            case .short: return "short"
            case .shortCompleting: return "shortCompleting"
            case .deferred: return "deferred"
            case .completing: return "completing"
            case .shortCompleting: return "shortCompleting"
            case .stream: return "stream"
            case .webSocket: return "webSocket"
            }
        }
        #expect(kind(.POST, "/api/v1/challenge") == "immediate")
        #expect(kind(.POST, "/api/v1/session") == "deferred")
        #expect(kind(.POST, "/api/v1/capability") == (backend == .sqlite ? "short" : "completing"))
        #expect(kind(.GET, "/llms.txt") == "none")  // the app composes one guide for every surface
        guard case .methodNotAllowed = harness.router.match(method: .GET, path: "/api/v1/challenge") else {
            Issue.record("GET /api/v1/challenge should be 405")
            return
        }
    }
}
