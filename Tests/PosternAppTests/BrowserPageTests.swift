import PosternTestSupport
import Testing
@testable import PosternApp

/// The remote-hash pages in a real browser: `Tests/Browser/test_pages.py` drives headless Chromium through
/// Selenium against a real server (register through the form, log in through the form, find the token
/// and its decoded claims, a form post without the CSRF token refused) and saves a screenshot of the
/// logged-in page to `artifacts/browser/logged-in.png`. `scripts/bootstrap` installs Chromium, its driver
/// and Selenium; a machine without them fails this test rather than skipping it.
@Suite("Remote-hash pages in headless Chromium")
struct BrowserPageTests {
    @Test(
        "the landing page links to the demo; register and log in through the forms; CSRF-less posts refused",
        arguments: StorageBackend.allCases)
    func browser(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let (status, log) = try await PythonScript.run("Browser/test_pages.py", arguments: ["http://127.0.0.1:\(server.port)"])
        #expect(status == 0, "browser test failed:\n\(log)")
        #expect(log.contains("Ran 5 tests"))
    }
}
