import Foundation
import HTTP1
import HTTPServer
import Logging
import PosternTestSupport
import SocketServer
import Synchronization
import Testing

@testable import PosternApp

@Suite("Request log lines", .timeLimit(.minutes(1)))
struct RequestLogTests {
    final class Capture: LineSink {
        let lines = Mutex<[String]>([])
        var text: String { lines.withLock { $0.joined() } }
        func append(_ bytes: [UInt8]) { lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
        func write(_ bytes: UnsafeRawBufferPointer) { append(Array(bytes)) }
    }

    @Test("a line has the UTC time, level, label, message and sorted metadata")
    func format() {
        let capture = Capture()
        let logger = Logger(label: "postern") { LineLogHandler(label: $0, level: .info, write: capture.append) }
        logger.info("request", metadata: ["status": "200", "method": "GET", "note": "two words"])
        logger.debug("dropped")
        let line = capture.text
        #expect(
            line.range(
                of:
                    #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info postern: request method=GET note="two words" status=200\n$"#,
                options: .regularExpression) != nil, "\(line)")
    }

    @Test(
        "the access log writes the line LineLogHandler would write for the same request",
        arguments: [
            (HTTPMethod.POST, "/api/v1/challenge", 201, UInt64(12_034_999), "abc-1", "12.034"),
            (HTTPMethod.GET, "/api/accounts/{id}", 404, UInt64(999), "x", "0.000"),
            (
                HTTPMethod(rawValue: "PURGE"), "a name with spaces", 501, UInt64(1_000_000_000_123), "id.2:x_y",
                "1000000.000"
            ),
        ])
    func accessLogMatchesLineLog(
        method: HTTPMethod, route: String, status: Int, nanoseconds: UInt64, requestID: String, milliseconds: String
    ) {
        let capture = Capture()
        let logger = Logger(label: "postern") { LineLogHandler(label: $0, level: .info, write: capture.append) }
        logger.info(
            "request",
            metadata: [
                "method": "\(method.rawValue)", "route": "\(route)", "status": "\(status)",
                "duration_ms": "\(milliseconds)",
                "request_id": "\(requestID)",
            ])
        var line: [UInt8] = [0x2A]  // appended after what the buffer holds
        let entry = HTTPAccessLog.Entry(
            method: method, route: route, status: status, durationNanoseconds: nanoseconds, requestID: requestID)
        HTTPAccessLog.append(
            entry, prefix: HTTPAccessLog.prefix(unixSeconds: Int(time(nil)), label: "postern"), into: &line)
        #expect(line.first == 0x2A)
        // Same second unless the clock ticked between the two: compare without the timestamp.
        #expect(String(decoding: line.dropFirst(), as: UTF8.self).dropFirst(20) == capture.text.dropFirst(20))
        #expect(HTTPAccessLog.timestamp(unixSeconds: 1_763_800_000) == Array("2025-11-22T08:26:40Z".utf8))
    }

    @Test(
        "one line per request with route template, status and request id; no token, key or password",
        arguments: StorageBackend.allCases)
    func noSecrets(_ backend: StorageBackend) async throws {
        let capture = Capture()
        let logger = Logger(label: "postern") { LineLogHandler(label: $0, level: .info, write: capture.append) }
        let server = try await TestServer.start(backend, logger: logger, accessLog: capture)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let challenge = try await client.request("POST", "/api/v1/challenge")
        let jwt = try #require(challenge.bearer)
        _ = try await client.json(
            "POST", "/api/v1/session",
            ["powHex": String(repeating: "0", count: 128), "nonce": "0", "username": "secretive"],
            headers: [("Authorization", "Bearer \(jwt)")])
        _ = try await client.json("POST", "/api/token", ["address": "a@mail.localhost", "password": "hunter2-secret"])
        _ = try await client.request("GET", "/api/accounts/abc", headers: [("Authorization", "Bearer tm_pro_abcdef")])
        // Lines are written at most a quarter second after the responses (EventLoop.lineFlushInterval): wait for the fourth.
        for _ in 0..<200 where capture.text.split(separator: "\n").filter({ $0.contains(" request ") }).count < 4 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let log = capture.text
        #expect(log.contains("route=/api/v1/challenge"))
        #expect(log.contains("route=/api/accounts/{id}"))
        #expect(log.contains("request_id=\(challenge.header("X-Request-Id") ?? "?")"))
        for secret in [jwt, String(jwt.split(separator: ".")[2]), "hunter2-secret", "tm_pro_abcdef", "Bearer"] {
            #expect(!log.contains(secret), "log line carries \(secret.prefix(12))…")
        }
        #expect(log.split(separator: "\n").filter { $0.contains(" request ") }.count == 4)
        // Answered within the loop turn that read it, the challenge still logs the time its HMAC and JSON took.
        let challengeLine = try #require(log.split(separator: "\n").first { $0.contains("route=/api/v1/challenge") })
        #expect(!challengeLine.contains("duration_ms=0.000"), "\(challengeLine)")
    }
}
