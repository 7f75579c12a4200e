import PosternTestSupport
import Testing

/// The owner pages in a real browser: `Tests/Browser/test_owner_pages.py` starts the built `postern serve`, makes an
/// owner with `postern owner create`, and drives headless Chromium through Selenium: sign in, create an inbox and read
/// its key, link an inbox made with `postern agent signup`, rotate a key (the old one refused by `postern agent login`
/// at once), revoke an app written as the authorization server writes one, delete an inbox after confirming, unlink
/// one, read the Recent activity (this owner's audit events), sign out. Screenshots of every step go to
/// `artifacts/browser/owner-*.png`. The script's server is on SQLite whatever the pass: it writes the grant with
/// sqlite3, and the PostgreSQL side of these pages is the OwnersTests suites', so the PostgreSQL pass skips it.
@Suite("Owner pages in headless Chromium")
struct OwnerBrowserPageTests {
    @Test("sign in, create, link, rotate, revoke, consent to an app, sign out through the pages")
    func browser() async throws {
        let (status, log) = try await PythonScript.run(
            "Browser/test_owner_pages.py", environment: ["POSTERN_BIN": ServeProcessTests.executable.path])
        #expect(status == 0, "owner pages browser test failed:\n\(log)")
        #expect(log.contains("Ran 1 test") && log.contains("owner-09-app-authorized.png"))
        // Each page at 1280×900 and 390×844 px, checked against the layout rules (postern_testkit.layout) before a shot.
        #expect(log.contains("owner-10-owner-at-1280.png") && log.contains("owner-13-owner-domains-at-390.png"))
        #expect(log.contains("owner-16-recent-activity.png") && log.contains("owner-17-signed-out.png"))
    }
}
