import Foundation
import PosternTestSupport
import ServerKit
import Testing

/// The request context end to end: the client address the composition root resolves once is the one
/// every surface counts (mailbox rate limits, agent difficulty). The test client connects from 127.0.0.1.
@Suite("Client addresses end to end")
struct ClientContextFlowTests {
    /// `GET /api/domains` with `X-Forwarded-For: forwarded` (none when nil); returns the status.
    private func domains(_ client: TestHTTPClient, forwardedFor forwarded: String?) async throws -> Int {
        let headers = forwarded.map { [("X-Forwarded-For", $0)] } ?? []
        return try await client.request("GET", "/api/domains", headers: headers).status
    }

    /// The difficulty of a fresh agent challenge asked for with `X-Forwarded-For: forwarded`.
    private func difficulty(_ client: TestHTTPClient, forwardedFor forwarded: String) async throws -> Int {
        let response = try await client.request(
            "POST", "/api/v1/challenge", headers: [("X-Forwarded-For", forwarded)])
        return try #require(try response.json()["difficulty"] as? Int)
    }

    @Test(
        "behind a trusted proxy each forwarded client has its own mailbox bucket and agent difficulty",
        arguments: StorageBackend.allCases)
    func trustedProxy(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.rateLimits.enabled = true
            // The public bucket's burst of eight as shipped, refilled once an hour rather than every second, so that a
            // slow machine's nine requests still meet an empty bucket.
            $0.mailbox.rateLimits.publicRate = TokenBucketRate(requests: 8, perSeconds: 3600)
            $0.agent.dynamicDifficulty = true
            $0.listener.trustedProxies = ["127.0.0.0/8"]
        }
        defer { Task { await server.stop() } }
        let client = try server.client()
        for _ in 0..<8 { #expect(try await domains(client, forwardedFor: "198.51.100.1") == 200) }
        #expect(try await domains(client, forwardedFor: "198.51.100.1") == 429)
        // The nearest untrusted hop counts: a hop the client wrote further left changes nothing.
        #expect(try await domains(client, forwardedFor: "192.0.2.99, 198.51.100.1") == 429)
        #expect(try await domains(client, forwardedFor: "198.51.100.2") == 200)
        // The proxy's own requests are its own client.
        #expect(try await domains(client, forwardedFor: nil) == 200)

        // Eleven challenges from fresh addresses of one /64: the eleventh costs one bit more.
        var last = 0
        for host in 1...11 { last = try await difficulty(client, forwardedFor: "2001:db8:9:9::\(host)") }
        #expect(last == 3)
        #expect(try await difficulty(client, forwardedFor: "2001:db8:9:a::1") == 2)
    }

    @Test(
        "from an untrusted peer X-Forwarded-For is ignored, and a malformed one from a proxy counts the proxy",
        arguments: StorageBackend.allCases)
    func untrustedAndMalformed(_ backend: StorageBackend) async throws {
        let direct = try await TestServer.start(backend) { $0.rateLimits.enabled = true }
        defer { Task { await direct.stop() } }
        let client = try direct.client()
        for index in 0..<8 { #expect(try await domains(client, forwardedFor: "198.51.100.\(index)") == 200) }
        #expect(try await domains(client, forwardedFor: "198.51.100.200") == 429)

        let proxied = try await TestServer.start(backend) {
            $0.rateLimits.enabled = true
            $0.listener.trustedProxies = ["127.0.0.0/8"]
        }
        defer { Task { await proxied.stop() } }
        let viaProxy = try proxied.client()
        for _ in 0..<4 { #expect(try await domains(viaProxy, forwardedFor: "not-an-address") == 200) }
        for _ in 0..<4 { #expect(try await domains(viaProxy, forwardedFor: nil) == 200) }
        #expect(try await domains(viaProxy, forwardedFor: "999.1.1.1") == 429)
        #expect(try await domains(viaProxy, forwardedFor: "198.51.100.7") == 200)
    }
}
