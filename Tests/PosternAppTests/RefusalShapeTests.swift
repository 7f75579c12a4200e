import Foundation
import PosternTestSupport
import Testing
@testable import PosternApp

/// Refusals the HTTP layer answers by itself keep the error shape of the surface that owns the path.
@Suite("HTTP-layer refusals in each surface's error shape")
struct RefusalShapeTests {
    @Test(
        "413 on /api/v1/session is in the agent shape; on /api/accounts it is {\"error\":\"content_too_large\"}",
        arguments: StorageBackend.allCases)
    func bodyTooLarge(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 70_000)

        let agent = try await server.client().request(
            "POST", "/api/v1/session", headers: [("Content-Type", "application/json")], body: big)
        #expect(agent.status == 413)
        #expect(agent.header("Connection") == "close")
        let error = try #require(try agent.json()["error"] as? [String: Any])
        #expect(error["message"] as? String == "Request body too large")
        #expect((error["docs_url"] as? String)?.hasPrefix("http://postern.test/llms.txt#") == true)

        let mailbox = try await server.client().request(
            "POST", "/api/accounts", headers: [("Content-Type", "application/json")], body: big)
        #expect(mailbox.status == 413)
        #expect(try mailbox.json()["error"] as? String == "content_too_large")
    }

    @Test(
        "a malformed request gets 400 {\"error\":\"bad_request\"} and the connection closes",
        arguments: StorageBackend.allCases)
    func malformed(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        client.sendRaw(Array("GET /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".utf8))
        let response = try await client.readResponse()
        #expect(response.status == 400)
        #expect(response.header("Connection") == "close")
        #expect(try response.json()["error"] as? String == "bad_request")
    }
}
