import Foundation
import Glibc
import Testing

/// The access log is gathered per event loop and written in batches: a burst of requests
/// followed at once by SIGTERM must still leave one line per answered request, and none with a secret.
@Suite("access log of postern serve")
struct AccessLogShutdownTests {
    @Test("a pipelined burst then SIGTERM leaves every access-log line in the log")
    func burstThenSIGTERM() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-accesslog-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logFile = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = ["serve", "--port", "0", "--data-dir", directory.appendingPathComponent("data").path]
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_LOG_LEVEL"] = "info"
        environment["POSTERN_SMTP_PORT"] = "0"
        environment["POSTERN_SANDBOX_SMTP_PORT"] = "off"
        environment["POSTERN_RATE_LIMITS"] = "off"
        environment["POSTERN_CONFIG"] = nil
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        var printed = ""
        var port: Int?
        let deadline = Date().addingTimeInterval(20)
        while port == nil, Date() < deadline {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
            if let range = printed.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(printed[range].split(separator: ":").last ?? "")
            }
        }
        let found = try #require(port, "no port line in: \(printed)")

        // 300 requests in one write on each of two connections, SIGTERM at once: whatever the server took
        // before it stopped is answered, and every answer has its line.
        let perConnection = 300
        let secret = "tm_pro_secret-\(UUID())"
        var request = "GET /healthz HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\n\r\n"
        request += "POST /api/v1/challenge HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
        let burst = String(repeating: request, count: perConnection / 2)
        let clients = try (0..<2).map { _ in try TestHTTPClient(port: found) }
        for client in clients { client.sendRaw(Array(burst.utf8)) }
        // One answer on each connection first, so the server has taken the burst when the signal comes.
        var answered = 0
        for client in clients {
            _ = try client.readResponseBlocking()
            answered += 1
        }
        kill(process.processIdentifier, SIGTERM)
        for client in clients {
            while (try? client.readResponseBlocking()) != nil { answered += 1 }
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(answered >= 2)

        let log = try String(contentsOf: logFile, encoding: .utf8)
        let lines = log.split(separator: "\n").filter { $0.contains(" info postern: request ") }
        #expect(lines.count == answered, "\(answered) answered, \(lines.count) lines")
        #expect(lines.allSatisfy { $0.contains("route=/healthz status=200") || $0.contains("route=/api/v1/challenge status=200") })
        #expect(!log.contains(secret))
    }
}
