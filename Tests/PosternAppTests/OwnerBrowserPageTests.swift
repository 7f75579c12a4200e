import Foundation
import PosternTestSupport
import Testing

/// The owner pages in a real browser: `Tests/Browser/test_owner_pages.py` starts the built `postern serve`, makes an
/// owner with `postern owner create`, and drives headless Chromium through Selenium: sign in, create an inbox and read
/// its key, link an inbox made with `postern agent signup`, rotate a key (the old one refused by `postern agent login`
/// at once), revoke an app written as the authorization server writes one, sign out. Screenshots of every step go to
/// `artifacts/browser/owner-*.png`. The script's server is on SQLite whatever the pass: it writes the grant with
/// sqlite3, and the PostgreSQL side of these pages is the OwnersTests suites', so the PostgreSQL pass skips it.
@Suite("Owner pages in headless Chromium")
struct OwnerBrowserPageTests {
    @Test(
        "sign in, create, link, rotate, revoke, sign out through the pages",
        .enabled(if: StorageBackend.current == .sqlite, "the script's server is SQLite; OwnersTests cover PostgreSQL"))
    func browser() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", ServeProcessTests.repository.appendingPathComponent("Tests/Browser/test_owner_pages.py").path,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_BIN"] = ServeProcessTests.executable.path
        environment["POSTERN_ARTIFACTS"] = ServeProcessTests.repository.appendingPathComponent("artifacts").path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Waiting blocks: keep it off the cooperative pool.
        let (status, log) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let log = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: log, as: UTF8.self)))
            }
        }
        #expect(status == 0, "owner pages browser test failed:\n\(log)")
        #expect(log.contains("Ran 1 test") && log.contains("owner-08-signed-out.png"))
    }
}
