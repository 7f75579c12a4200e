import AgentClient
import HTTP1
import MetricsTestKit
import PosternTestSupport
import Testing

@testable import AgentAuth

@Suite("Agent metrics")
struct AgentAuthMetricsTests {
    static func verifications(_ metrics: TestMetrics, _ result: String) throws -> Int64 {
        try metrics.expectCounter("postern_pow_verifications_total", [("surface", "agent"), ("result", result)])
            .totalValue
    }

    @Test(
        "Difficulty gauges, challenge counts, verifications by result, signups, logins, capabilities",
        arguments: StorageBackend.allCases)
    func recorded(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 1, maxDifficulty: 3, dynamic: true)
        let metrics = harness.metrics
        #expect(try metrics.expectGauge("postern_agent_pow_base_difficulty").lastValue == 1)
        for _ in 0..<11 {
            _ = try await harness.challenge(remoteAddress: "203.0.113.50")
        }
        #expect(try metrics.expectCounter("postern_agent_challenges_total").totalValue == 11)
        #expect(try metrics.expectCounter("postern_agent_difficulty_raised_total").totalValue == 1)
        #expect(try metrics.expectGauge("postern_agent_pow_difficulty").lastValue == 2)

        let (apiKey, session) = try await harness.signup("metricsbot")
        _ = try await harness.session("apiKey", apiKey)
        _ = await harness.send(.POST, "/api/v1/capability", bearer: session)
        #expect(try Self.verifications(metrics, "valid") == 2)
        #expect(try metrics.expectCounter("postern_agent_signups_total").totalValue == 1)
        #expect(try metrics.expectCounter("postern_agent_logins_total").totalValue == 1)
        #expect(try metrics.expectCounter("postern_agent_capabilities_total").totalValue == 1)

        let challenge = try await harness.challenge()
        let weak = AgentPoWSolution(nonce: 0, powHex: String(repeating: "f", count: 128))
        _ = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token, body: AgentHarness.sessionBody(weak, "username", "x1234")
        )
        #expect(try Self.verifications(metrics, "insufficient_bits") == 1)
        let solution = try harness.solve(challenge.id, difficulty: challenge.difficulty)
        let wrong = AgentPoWSolution(nonce: solution.nonce + 1, powHex: solution.powHex)
        _ = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(wrong, "username", "x1234"))
        #expect(try Self.verifications(metrics, "mismatch") == 1)
        _ = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "x1234"))
        #expect(try Self.verifications(metrics, "replayed") == 1)
    }
}
