import Foundation
import Testing

/// `postern serve` as an operator runs it: the built executable with the shipped config file, port 0,
/// a fresh data directory; it prints its port, answers, and exits 0 on SIGTERM and SIGINT.
@Suite("postern serve as a process", .timeLimit(.minutes(3)))
struct ServeProcessTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The executable `swift test` builds next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("postern")
    }

    private func runOnce(signal: Int32, dataDirectory: String) throws -> (
        reason: Process.TerminationReason, status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "serve", "--config", Self.repository.appendingPathComponent("config/postern.env").path, "--port", "0",
            "--data-dir", dataDirectory,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_LOG_LEVEL"] = "notice"
        environment["POSTERN_SMTP_PORT"] = "0"
        environment["POSTERN_SANDBOX_SMTP_PORT"] = "off"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var text = ""
        var port: Int?
        let deadline = Date().addingTimeInterval(20)
        while port == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last ?? "")
            }
        }
        let found = try #require(port, "no port line in: \(text)")
        let health = try TestHTTPClient(port: found).requestBlocking("GET", "/healthz", headers: [], body: [])
        #expect(health.text == #"{"status":"ok"}"#)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationReason, process.terminationStatus, text)
    }

    @Test("starts with the shipped config, answers, and exits 0 on SIGTERM and SIGINT, repeatedly")
    func startAndStop() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        // Blocking waits: off the cooperative pool.
        let results = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try (0..<12).map { round in
                            try self.runOnce(signal: round % 2 == 0 ? SIGTERM : SIGINT, dataDirectory: dataDirectory)
                        }
                    })
            }
        }
        for result in results {
            // A crash at exit (a signal, not an exit status) fails here: serve returns normally, no `_exit`.
            #expect(result.reason == .exit, "signal \(result.status): \(result.output)")
            #expect(result.status == 0, "exit \(result.status): \(result.output)")
            #expect(result.output.contains("stopped"))
        }
    }

    /// Runs `body` with `postern serve` started on the shipped config, port 0, SMTP off,
    /// `POSTERN_LOG_LEVEL=notice` and `settings` over the environment, on a fresh data directory; the
    /// process is killed if still running, and the directory removed, when `body` returns.
    private func withServeChild(
        _ settings: [String: String], _ body: (ServeChild) async throws -> Void
    ) async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_LOG_LEVEL"] = "notice"
        environment["POSTERN_SMTP"] = "off"
        environment.merge(settings) { $1 }
        let child = try ServeChild(
            executable: Self.executable,
            arguments: [
                "serve", "--config", Self.repository.appendingPathComponent("config/postern.env").path,
                "--port", "0", "--data-dir", dataDirectory,
            ],
            environment: environment)
        defer { child.terminate() }
        try await body(child)
    }

    @Test("POSTERN_EVENT_LOOPS sets how many loops serve, and says so in the listening line")
    func eventLoops() async throws {
        try await withServeChild(["POSTERN_EVENT_LOOPS": "3"]) { child in
            #expect(child.output().contains("(3 event loops)"), "\(child.output())")
            let client = try TestHTTPClient(port: child.port)
            for _ in 0..<6 { #expect(try await client.request("GET", "/healthz").status == 200) }
        }
    }

    @Test("each mail listener says where it listens, as HTTP does; POSTERN_SMTP_PORT=off leaves the sandbox's on")
    func mailListeningLines() async throws {
        let settings = [
            "POSTERN_SMTP": "on", "POSTERN_SMTP_PORT": "off", "POSTERN_SANDBOX_SMTP_PORT": "0", "POSTERN_IMAP": "on",
            "POSTERN_IMAP_PORT": "0", "POSTERN_IMAPS_PORT": "0", "POSTERN_POP3": "on", "POSTERN_POP3_PORT": "0",
            "POSTERN_POP3S_PORT": "0", "POSTERN_SUBMISSION": "on", "POSTERN_SUBMISSION_PORT": "0",
            "POSTERN_SUBMISSIONS_PORT": "0",
        ]
        try await withServeChild(settings) { child in
            // The JSON line comes last.
            for _ in 0..<200 where !child.output().contains("\"pid\"") { try await Task.sleep(for: .milliseconds(50)) }
            let output = child.output()
            let listeners = [
                ("IMAP", "imap"), ("IMAPS", "imaps"), ("POP3", "pop3"), ("POP3S", "pop3s"), ("submission", "smtp"),
                ("submissions", "smtps"),
            ]
            for (name, scheme) in listeners {
                #expect(
                    output.range(
                        of: "\npostern \(name) listening on \(scheme)://127\\.0\\.0\\.1:[1-9][0-9]*\n",
                        options: .regularExpression) != nil, "\(name): \(output)")
            }
            #expect(output.contains("postern SMTP sandbox listening on smtp://127.0.0.1:"), "\(output)")
            #expect(!output.contains("postern SMTP listening"), "\(output)")
            #expect(output.contains("\"smtp\":null") && !output.contains("/./"), "\(output)")
        }
    }

    @Test("with POSTERN_DRAIN_SECONDS, SIGTERM makes /readyz fail while the rest still answers, then it exits 0")
    func drainAfterSIGTERM() async throws {
        try await withServeChild(["POSTERN_DRAIN_SECONDS": "2"]) { child in
            let client = try TestHTTPClient(port: child.port)
            #expect(try await client.request("GET", "/readyz").status == 200)
            let sent = Date()
            kill(child.process.processIdentifier, SIGTERM)
            var draining = try await client.request("GET", "/readyz")
            while draining.status == 200 && Date().timeIntervalSince(sent) < 1.5 {
                try await Task.sleep(for: .milliseconds(20))
                draining = try await client.request("GET", "/readyz")
            }
            #expect(draining.status == 503)
            #expect(draining.text == #"{"status":"draining"}"#)
            #expect(try await client.request("GET", "/healthz").status == 200)
            #expect(try await client.request("POST", "/api/v1/challenge").status == 200)
            // Blocking wait: off the cooperative pool.
            let process = child.process
            let status = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                }
            }
            #expect(status == 0, "\(child.output())")
            #expect(Date().timeIntervalSince(sent) >= 2)
            #expect(child.output().contains("draining"))
        }
    }
}
