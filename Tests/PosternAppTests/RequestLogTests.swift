import Foundation
import Logging
import Synchronization
import Testing
@testable import PosternApp

@Suite("Request log lines")
struct RequestLogTests {
    final class Capture: Sendable {
        let lines = Mutex<[String]>([])
        var text: String { lines.withLock { $0.joined() } }
        func append(_ bytes: [UInt8]) { lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
    }

    @Test("a line has the UTC time, level, label, message and sorted metadata")
    func format() {
        let capture = Capture()
        let logger = Logger(label: "postern") { LineLogHandler(label: $0, level: .info, write: capture.append) }
        logger.info("request", metadata: ["status": "200", "method": "GET", "note": "two words"])
        logger.debug("dropped")
        let line = capture.text
        #expect(line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info postern: request method=GET note="two words" status=200\n$"#,
                           options: .regularExpression) != nil, "\(line)")
    }

    @Test("one line per request with route template, status and request id; no token, key or password")
    func noSecrets() async throws {
        let capture = Capture()
        let logger = Logger(label: "postern") { LineLogHandler(label: $0, level: .info, write: capture.append) }
        let server = try await TestServer.start(logger: logger)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let challenge = try await client.request("POST", "/api/v1/challenge")
        let jwt = try #require(challenge.bearer)
        _ = try await client.json(
            "POST", "/api/v1/session", ["powHex": String(repeating: "0", count: 128), "nonce": "0", "username": "secretive"],
            headers: [("Authorization", "Bearer \(jwt)")])
        _ = try await client.json("POST", "/api/token", ["address": "a@mail.localhost", "password": "hunter2-secret"])
        _ = try await client.request("GET", "/api/accounts/abc", headers: [("Authorization", "Bearer tm_pro_abcdef")])
        let log = capture.text
        #expect(log.contains("route=/api/v1/challenge"))
        #expect(log.contains("route=/api/accounts/{id}"))
        #expect(log.contains("request_id=\(challenge.header("X-Request-Id") ?? "?")"))
        for secret in [jwt, String(jwt.split(separator: ".")[2]), "hunter2-secret", "tm_pro_abcdef", "Bearer"] {
            #expect(!log.contains(secret), "log line carries \(secret.prefix(12))…")
        }
        #expect(log.split(separator: "\n").filter { $0.contains(" request ") }.count == 4)
    }
}
