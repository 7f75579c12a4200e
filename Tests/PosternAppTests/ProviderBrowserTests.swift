import PosternTestSupport
import Testing

/// Signing in with an OpenID Connect provider in a real browser (issue 54, case 8): `Tests/Browser/test_oidc_browser.py`
/// starts oidc-provider-mock (PyPI) on `http://127.0.0.1:MOCK` and the built `postern serve` on
/// `http://localhost:PORT` (two sites, so the provider's redirect back is a cross-site navigation as in life), and
/// drives headless Chromium with JavaScript on: an owner presses the provider's button on `/owner/sign-in`, types her
/// subject on the provider's page, and is back on `/owner` signed in with the provider linked; signed out, she chooses
/// her subject from the provider's list and is signed in again; a newcomer does the same from `/inbox/sign-in` and
/// lands, signed up without a password, in the Pro dashboard; a Pro user with a password links the provider on the
/// provider-link page (a wrong password refused there first) and unlinks it on the dashboard; an unverified email
/// gets the refusal page; axe-core finds nothing serious or critical on both sign-in pages and both "Sign-in
/// methods", and the provider-link pages are looked at 1280×900 and 390×844 (screenshots, axe, the layout rules:
/// every notice its kind, Unlink a secondary button). One browser for the whole walk, in a suite of its own (its own test
/// lane). On SQLite only, as the other browser suites: the script's server is its own, and both databases' side of
/// the flow is `SignInFlowTests`', `OwnerProviderLinkingTests`' and `WebInboxProviderTests`'.
@Suite("Provider sign-in in headless Chromium")
struct ProviderBrowserTests {
    @Test(
        "an owner and a Pro user sign in through the provider's page, another links hers by password; axe and the layout rules on the provider-link pages"
    )
    func browser() async throws {
        let (status, log) = try await PythonScript.runServing("Browser/test_oidc_browser.py")
        #expect(status == 0, "provider browser test failed:\n\(log)")
        // Both walks ran (unittest's summary, each walk's time) and the log names the browser they ran in.
        #expect(log.contains("Ran 4 tests") && log.contains("\nOK") && log.contains("Chromium "))
        #expect(log.contains("owner walk: ") && log.contains("Pro walk: ") && log.contains("provider-link walk: "))
    }
}
