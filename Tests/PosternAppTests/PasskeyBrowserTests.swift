import PosternTestSupport
import Testing

/// Passkeys in a real browser (issue 56): `Tests/Browser/test_passkeys_browser.py` starts the built `postern serve` on
/// `http://localhost:PORT` (the RP ID `localhost`), and drives headless Chromium's virtual authenticator (CTAP2,
/// internal transport, resident keys, user verification) through the pages with JavaScript on: an owner registers an
/// ES256, an EdDSA and an RS256 passkey under "Sign-in methods" on `/owner`, signs out and signs in with each alone
/// (the button, and once the email field's autofill); a Pro user does the same on `/inbox`; a credential whose
/// signature counter is set back is refused, marked possibly cloned and audited; a passkey signs the owner in on the
/// way through `/oauth/authorize` (to the consent page); axe-core finds nothing serious on the sign-in pages, "Sign-in
/// methods" and the refusal. One browser for the whole walk, in a suite of its own (its own test lane). On SQLite only,
/// as the other browser suites: the script's server is its own, and the PostgreSQL side of the ceremonies is
/// `OwnerPasskeyTests`' and `WebInboxPasskeyTests`'.
@Suite("Passkeys in headless Chromium")
struct PasskeyBrowserTests {
    @Test("ES256, EdDSA and RS256 passkeys on /owner, /inbox and through /oauth/authorize; a counter set back refused")
    func browser() async throws {
        let (status, log) = try await PythonScript.runServing("Browser/test_passkeys_browser.py")
        #expect(status == 0, "passkey browser test failed:\n\(log)")
        // The four walks ran (unittest's summary, each walk's time) and the log names the browser they ran in.
        #expect(log.contains("Ran 4 tests") && log.contains("\nOK") && log.contains("Chromium "))
        #expect(log.contains("owner walk: ") && log.contains("Pro walk: ") && log.contains("counter walk: ")
            && log.contains("OAuth walk: "))
    }
}
