import PosternTestSupport
import Testing

/// The web inbox and the Pro dashboard in a real browser: `Tests/Browser/test_web_inbox.py` starts the built
/// `postern serve`, and for a Mail.td account (v1 and v2), a Pro user, an owner and a `postern web link` one-time link
/// drives headless Chromium: sign in, a message over SMTP shows without a reload, open it, download its attachment,
/// view its source, mark it unread, delete it; a Pro user's token shown once, a domain's records, a sandbox capture's
/// verdicts; an owner's reply arriving in another agent's inbox, and mail to another domain held with a Release button;
/// `postern web link --all`'s read-only view of all mail; a hostile HTML message that runs and fetches nothing;
/// another person's URLs answering 404; axe-core and a keyboard walk on every view; the pages with JavaScript off.
/// Screenshots go to `artifacts/browser/inbox-*.png`. On SQLite only: the script's server is its own, and the
/// PostgreSQL side of these pages is `WebInboxTests`'.
@Suite("Web inbox in headless Chromium")
struct WebInboxBrowserTests {
    @Test("every kind of person reads, answers and manages mail through the pages")
    func browser() async throws {
        let (status, log) = try await PythonScript.run(
            "Browser/test_web_inbox.py", environment: ["POSTERN_BIN": ServeProcessTests.executable.path])
        #expect(status == 0, "web inbox browser test failed:\n\(log)")
        #expect(log.contains("Ran 8 tests") && log.contains("inbox-owner-sent.png"))
        #expect(log.contains("inbox-all-mail-mailboxes.png") && log.contains("inbox-all-mail-message.png"))
        #expect(log.contains("inbox-hostile-message.png") && log.contains("inbox-pro-domain-added.png"))
    }
}
