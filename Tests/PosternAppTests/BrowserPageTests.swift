import Foundation
import Testing
@testable import PosternApp

/// The remote-hash pages in a real browser: `Tests/Browser/test_pages.py` drives headless Chromium through
/// Selenium against a real server (register through the form, log in through the form, find the token
/// and its decoded claims, a form post without the CSRF token refused) and saves a screenshot of the
/// logged-in page to `artifacts/browser/logged-in.png`. `scripts/bootstrap` installs Chromium, its driver
/// and Selenium; a machine without them fails this test rather than skipping it.
@Suite("Remote-hash pages in headless Chromium")
struct BrowserPageTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("register and log in through the forms; CSRF-less posts refused")
    func browser() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.repository.appendingPathComponent("Tests/Browser/test_pages.py").path,
            "http://127.0.0.1:\(server.port)",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_ARTIFACTS"] = Self.repository.appendingPathComponent("artifacts").path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Waiting blocks: keep it off the cooperative pool that the in-process server's handlers need.
        let (status, log) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let log = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: log, as: UTF8.self)))
            }
        }
        #expect(status == 0, "browser test failed:\n\(log)")
        #expect(log.contains("Ran 4 tests"))
    }
}
