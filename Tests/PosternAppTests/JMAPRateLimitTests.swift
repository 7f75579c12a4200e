import Foundation
import Testing

@testable import PosternApp

/// Uploads are limited per client address, apart from API requests, with the same rate-limit switch as every
/// surface.
@Suite("JMAP rate limits")
struct JMAPRateLimitTests {
    @Test("the 61st upload in a minute gets 429 with Retry-After; API requests still pass")
    func uploads() async throws {
        let harness = try await JMAPHarness.start(rateLimits: true)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("uploader")
        let headers = [("Authorization", "Bearer \(agent.capability)"), ("Content-Type", "text/plain")]
        for index in 0..<60 {
            let response = try await harness.client.request(
                "POST", "/jmap/upload/\(agent.accountID)", headers: headers, body: Array("blob \(index)".utf8))
            try #require(response.status == 201, "upload \(index): \(response.status)")
        }
        let refused = try await harness.client.request(
            "POST", "/jmap/upload/\(agent.accountID)", headers: headers, body: Array("one too many".utf8))
        #expect(refused.status == 429)
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(refused.header("Content-Type") == "application/problem+json")
        let echo = try await harness.single(agent, "Core/echo", ["hello": true])
        #expect(echo.name == "Core/echo")
    }
}
