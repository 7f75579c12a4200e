import AgentClient
import HTTP1
import MetricsTestKit
import PosternTestSupport
import Testing

@testable import AgentAuth

/// Each `/api/v1/*` endpoint has a bucket per client address (issue 32: a zero-work proof still made the server run
/// scrypt, and nothing stopped one client from asking for as many as it liked).
@Suite("Agent rate limits")
struct AgentRateLimitTests {
    @Test(
        "the 121st challenge in a minute is 429 with Retry-After, counted; another address and time go on",
        arguments: StorageBackend.allCases)
    func challenges(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        for _ in 0..<120 { _ = try await harness.challenge(remoteAddress: "198.51.100.7") }
        let refused = await harness.send(.POST, "/api/v1/challenge", remoteAddress: "198.51.100.7")
        expectError(refused, .tooManyRequests)
        #expect(Int(refused.headers["Retry-After"] ?? "") ?? 0 >= 1)
        #expect(
            try harness.metrics.expectCounter(
                "postern_rate_limit_rejections_total", [("surface", "agent"), ("class", "challenge")]
            ).totalValue == 1)
        _ = try await harness.challenge(remoteAddress: "198.51.100.8")
        harness.clock.advance(seconds: 1)
        _ = try await harness.challenge(remoteAddress: "198.51.100.7")
    }

    @Test(
        "zero-work proofs: past 60 session requests a minute the 61st is 429 before any scrypt runs",
        arguments: StorageBackend.allCases)
    func zeroWorkSessions(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 6)
        let zeros = AgentPoWSolution(nonce: 0, powHex: String(repeating: "0", count: 128))
        let tokens = try await (0..<61).asyncMap { _ in try await harness.challenge().token }
        for token in tokens.prefix(60) {
            let response = await harness.send(
                .POST, "/api/v1/session", bearer: token, body: AgentHarness.sessionBody(zeros, "username", "zeroes"))
            expectError(response, .powMismatch)
        }
        let refused = await harness.send(
            .POST, "/api/v1/session", bearer: tokens[60], body: AgentHarness.sessionBody(zeros, "username", "zeroes"))
        expectError(refused, .tooManyRequests)
        let verifications = try harness.metrics.expectCounter(
            "postern_pow_verifications_total", [("surface", "agent"), ("result", "mismatch")])
        #expect(verifications.totalValue == 60, "the refused request ran no scrypt")
        #expect(
            try harness.metrics.expectCounter(
                "postern_rate_limit_rejections_total", [("surface", "agent"), ("class", "session")]
            ).totalValue == 1)
    }

    @Test("the 301st capability request in a minute is 429", arguments: StorageBackend.allCases)
    func capabilities(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        let (_, session) = try await harness.signup("ratelimited")
        for index in 0..<300 {
            let response = await harness.send(.POST, "/api/v1/capability", bearer: session)
            try #require(response.status.code == 200, "request \(index): \(response.status.code)")
        }
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: session), .tooManyRequests)
    }
}

extension Sequence {
    /// The results of `transform` on each element, one after the other.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
