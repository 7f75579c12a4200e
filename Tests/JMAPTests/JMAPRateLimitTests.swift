import Foundation
import PosternTestSupport
import Testing

/// Uploads are limited per client address, apart from API requests, with the same rate-limit switch as every
/// surface.
@Suite("JMAP rate limits")
struct JMAPRateLimitTests {
    @Test(
        "the 61st upload in a minute gets 429 with Retry-After; API requests still pass",
        arguments: StorageBackend.allCases)
    func uploads(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend, rateLimits: true)
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

    @Test(
        "blobs of 64 MiB a minute from one address: the upload URL answers 429, Blob/upload rateLimit, past it",
        arguments: StorageBackend.allCases)
    func uploadVolume(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend, rateLimits: true, inboxQuota: 1 << 30)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("volumeuploader")
        let headers = [("Authorization", "Bearer \(agent.capability)"), ("Content-Type", "application/octet-stream")]
        let twentyMiB = [UInt8](repeating: 0x5a, count: 20 * 1024 * 1024)
        for index in 0..<3 {
            let response = try await harness.client.request(
                "POST", "/jmap/upload/\(agent.accountID)", headers: headers, body: twentyMiB)
            try #require(response.status == 201, "upload \(index): \(response.status) \(response.text)")
        }
        let refused = try await harness.client.request(
            "POST", "/jmap/upload/\(agent.accountID)", headers: headers, body: twentyMiB)
        #expect(refused.status == 429, "\(refused.status) \(refused.text)")
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        // 60 MiB taken of 64: a 4 MiB Blob/upload fits, the next 4 MiB do not (the harness's rate clock stands
        // still: nothing refills however long the uploads take).
        let fits = try await harness.single(
            agent, "Blob/upload",
            ["accountId": agent.accountID, "create": ["a": ["data": [["data:asText": String(repeating: "y", count: 4 << 20)]]]]])
        #expect(fits.object("created")?["a"] != nil, "\(fits.arguments)")
        let limited = try await harness.single(
            agent, "Blob/upload", ["accountId": agent.accountID, "create": ["b": ["data": [["data:asText": String(repeating: "z", count: 4 << 20)]]]]])
        let error = limited.object("notCreated")?["b"] as? [String: Any]
        #expect(error?["type"] as? String == "rateLimit", "\(limited.arguments)")
    }
}
