import Audit
import ConfigurationReading
import HTTP1
import PosternTestSupport
import SecondFactors
import ServerKit
import SignInMethods
import Storage
import TOTP
import Testing

@testable import WebInbox

/// A Pro user's second factor (issue 88 item 3) through the web inbox's pages, the owners' rules on the Pro surface:
/// set up on `/inbox/two-step` only on a recent sign-in, confirmed by a first code, then asked for after the password
/// at `/inbox/sign-in/second-step`; a code signs in once, a recovery code once, wrong codes slow the user down; with
/// `required-for-passwords` one who has none sets one up at sign-in. Each on the operator's trail.
@Suite("Web inbox: a Pro user's two-step sign-in (TOTP and recovery codes)")
struct ProTwoStepTests {
    static let email = "ada@example.com"

    /// The secret a setup page shows (`#totp-secret`).
    static func secret(in response: HTTPResponse) throws -> [UInt8] {
        let html = response.text
        let range = try #require(html.range(of: "id=\"totp-secret\">"))
        return try #require(Base32.decode(String(html[range.upperBound...].prefix { $0 != "<" })))
    }

    /// The recovery codes a page shows (`#recovery-code-list`).
    static func recoveryCodes(in response: HTTPResponse) -> [String] {
        response.text.split(separator: "<li><code>").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    /// The code of `secret` at the harness's time, `offset` steps away.
    static func code(_ secret: [UInt8], _ harness: WebInboxHarness, offset: Int64 = 0) -> String {
        let totp = TOTP()
        return totp.code(secret: secret, step: totp.step(at: harness.clock.now) + offset)
    }

    /// A new browser's password sign-in: the answer to the post.
    static func password(_ harness: WebInboxHarness, _ browser: Browser) async throws -> HTTPResponse {
        try await browser.signIn(["kind": "pro", "email": email, "password": "pro-password"])
    }

    /// A new browser: the password (sent to the second step, no session), then `code` there; the browser and the answer.
    static func secondStep(_ harness: WebInboxHarness, _ code: String) async throws -> (Browser, HTTPResponse) {
        let browser = harness.browser()
        let first = try await password(harness, browser)
        #expect(first.status == .seeOther && first.headers["Location"] == WebInboxService.secondStepPath)
        #expect(browser.jar.cookies[WebInboxService.sessionCookie] == nil)
        let page = await browser.send(.GET, WebInboxService.secondStepPath)
        let csrf = try #require(Browser.csrf(in: page))
        return (browser, await browser.send(.POST, WebInboxService.secondStepPath, form: ["csrf_token": csrf, "code": code]))
    }

    static func actions(_ harness: WebInboxHarness) async throws -> [String] {
        try await SQLAuditLog(database: harness.test.database).events(since: nil, ownerID: nil, limit: 1000)
            .map(\.action.rawValue)
    }

    @Test("set up on a recent sign-in only; then a code once, a recovery code once, wrong codes slowed", arguments: StorageBackend.allCases)
    func enrolAndSignIn(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let (adaID, _) = try await harness.proLogin(Self.email)
        let browser = harness.browser()
        #expect(try await Self.password(harness, browser).headers["Location"] == "/inbox")
        let dashboard = await browser.send(.GET, "/inbox/dashboard")
        #expect(dashboard.text.contains("id=\"two-step-link\" href=\"/inbox/two-step\""))
        let page = await browser.send(.GET, "/inbox/two-step")
        #expect(page.status == .ok && page.text.contains("data-state=\"off\""))
        let csrf = try #require(Browser.csrf(in: page))

        // Past the fresh proof's window, the session alone shows no secret.
        harness.clock.advance(5 * 60 + 1)
        let stale = await browser.send(.POST, "/inbox/two-step/setup", form: ["csrf_token": csrf])
        #expect(stale.status == .forbidden && !stale.text.contains("totp-secret"))

        let fresh = harness.browser()
        #expect(try await Self.password(harness, fresh).headers["Location"] == "/inbox")
        let freshCSRF = try #require(Browser.csrf(in: await fresh.send(.GET, "/inbox/two-step")))
        let setup = await fresh.send(.POST, "/inbox/two-step/setup", form: ["csrf_token": freshCSRF])
        #expect(setup.status == .ok && setup.text.contains("otpauth://totp/127.0.0.1:ada%40example.com?secret="))
        #expect(setup.text.contains("id=\"totp-qr\""))
        let secret = try Self.secret(in: setup)
        let wrong = await fresh.send(.POST, "/inbox/two-step/confirm", form: ["csrf_token": freshCSRF, "code": "000000"])
        #expect(wrong.status == .unprocessableEntity)
        let confirmed = await fresh.send(
            .POST, "/inbox/two-step/confirm", form: ["csrf_token": freshCSRF, "code": Self.code(secret, harness)])
        let codes = Self.recoveryCodes(in: confirmed)
        #expect(confirmed.status == .ok && codes.count == 10)

        // The confirmation used this step: the next one's code signs in, once.
        let next = Self.code(secret, harness, offset: 1)
        let (signedIn, answer) = try await Self.secondStep(harness, next)
        #expect(answer.status == .seeOther && answer.headers["Location"] == "/inbox")
        #expect(signedIn.jar.cookies[WebInboxService.sessionCookie] != nil)
        #expect((await signedIn.send(.GET, "/inbox/dashboard")).status == .ok)
        let (_, replayed) = try await Self.secondStep(harness, next)
        #expect(replayed.status == .unauthorized)
        let (_, recovery) = try await Self.secondStep(harness, codes[0].uppercased())
        #expect(recovery.status == .seeOther)
        let (_, usedAgain) = try await Self.secondStep(harness, codes[0])
        #expect(usedAgain.status == .unauthorized)
        #expect(try await harness.service.secondFactors?.state(holder: adaID)
            == .on(recoveryCodesLeft: 9))

        // Wrong codes count in the backoff: past the free failures the address waits.
        var last = HTTPStatus.ok
        for _ in 0..<8 { last = try await Self.secondStep(harness, "123456").1.status }
        #expect(last == .tooManyRequests)

        let trail = try await Self.actions(harness)
        #expect(trail.contains("pro.mfa_enabled") && trail.contains("pro.recovery_code_used"))
        #expect(trail.filter { $0 == "pro.signin" }.count == 2)
        #expect(trail.filter { $0 == "pro.signin_failed" }.count >= 3)
    }

    @Test("required-for-passwords: a Pro user without a factor sets one up at sign-in", arguments: StorageBackend.allCases)
    func requiredSetUp(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend) { $0.proSecondFactor = .requiredForPasswords }
        _ = try await harness.proLogin(Self.email)
        let browser = harness.browser()
        let first = try await Self.password(harness, browser)
        #expect(first.headers["Location"] == WebInboxService.secondStepPath)
        let page = await browser.send(.GET, WebInboxService.secondStepPath)
        #expect(page.text.contains("set up an authenticator app"))
        let secret = try Self.secret(in: page)
        let csrf = try #require(Browser.csrf(in: page))
        let done = await browser.send(
            .POST, WebInboxService.secondStepPath, form: ["csrf_token": csrf, "code": Self.code(secret, harness)])
        #expect(done.status == .ok && Self.recoveryCodes(in: done).count == 10)
        #expect((await browser.send(.GET, "/inbox/dashboard")).status == .ok)
        #expect(try await Self.actions(harness).contains("pro.mfa_enabled"))
    }

    @Test(
        "a half-done sign-in rests on the token epoch its password found: moved since (another browser turned the factor on), its second step is gone",
        arguments: StorageBackend.allCases)
    func staleSecondStep(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend) { $0.proSecondFactor = .requiredForPasswords }
        _ = try await harness.proLogin(Self.email)
        let stale = harness.browser()
        #expect(try await Self.password(harness, stale).headers["Location"] == WebInboxService.secondStepPath)
        // Another browser signs in and sets the factor up at its own second step: the epoch moves.
        let other = harness.browser()
        _ = try await Self.password(harness, other)
        let page = await other.send(.GET, WebInboxService.secondStepPath)
        let csrf = try #require(Browser.csrf(in: page))
        let done = await other.send(
            .POST, WebInboxService.secondStepPath,
            form: ["csrf_token": csrf, "code": Self.code(try Self.secret(in: page), harness)])
        #expect(done.status == .ok)
        let again = await stale.send(.GET, WebInboxService.secondStepPath)
        #expect(again.status == .seeOther && again.headers["Location"] == "/inbox/sign-in")
        #expect((await stale.send(.GET, "/inbox/dashboard")).status != .ok)
    }

    @Test(
        "a provider's link proven by the password goes to the second step as the password sign-in does (required: the setup), no session yet",
        arguments: [StorageBackend.sqlite])
    func providerLinkByPassword(_ backend: StorageBackend) async throws {
        let provider = WebInboxProviderTests.provider()
        let harness = try WebInboxHarness(backend, provider: provider) { $0.proSecondFactor = .requiredForPasswords }
        _ = try await harness.proLogin(Self.email)
        guard
            case .confirmPassword(let pending) = try await WebInboxProviderTests.outcome(
                harness, WebInboxProviderTests.identity("ada-sub", Self.email))
        else {
            Issue.record("no password question")
            return
        }
        let browser = harness.browser()
        browser.jar.cookies["postern_inbox_oidc_link"] = try harness.service.forms.seal(
            pending, purpose: "pro pending link", now: harness.clock.now)
        let question = await browser.send(.GET, "/inbox/sign-in/provider-link")
        let csrf = try #require(Browser.csrf(in: question))
        let answer = await browser.send(
            .POST, "/inbox/sign-in/provider-link", form: ["csrf_token": csrf, "password": "pro-password"])
        #expect(answer.status == .seeOther && answer.headers["Location"] == WebInboxService.secondStepPath)
        #expect(browser.jar.cookies[WebInboxService.sessionCookie] == nil)
        #expect((await browser.send(.GET, WebInboxService.secondStepPath)).text.contains("set up an authenticator app"))
    }

    @Test(
        "turning the factor on ends the user's other sessions and password JWTs; this session and tm_pro_ tokens stay",
        arguments: StorageBackend.allCases)
    func enrolmentEndsOtherSessions(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let (_, jwt) = try await harness.proLogin(Self.email)
        let apiToken = try await harness.apiToken(bearer: jwt)
        let login = await harness.browser().send(
            .POST, "/api/user/login", json: #"{"email":"\#(Self.email)","password":"pro-password"}"#)
        let otherJWT = try #require(WebInboxHarness.jsonField("token", login))
        let other = harness.browser()
        #expect(try await Self.password(harness, other).headers["Location"] == "/inbox")
        let pasted = harness.browser()
        #expect(try await pasted.signIn(["kind": "pro", "token": apiToken]).status == .seeOther)
        func me(_ bearer: String) async -> HTTPStatus {
            await harness.browser().send(.GET, "/api/user/me", headers: [("Authorization", "Bearer " + bearer)]).status
        }
        let (before, otherBefore) = (await me(jwt), await me(otherJWT))
        #expect(before == .ok && otherBefore == .ok)

        let browser = harness.browser()
        #expect(try await Self.password(harness, browser).headers["Location"] == "/inbox")
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/two-step")))
        let secret = try Self.secret(in: await browser.send(.POST, "/inbox/two-step/setup", form: ["csrf_token": csrf]))
        let confirmed = await browser.send(
            .POST, "/inbox/two-step/confirm", form: ["csrf_token": csrf, "code": Self.code(secret, harness)])
        #expect(confirmed.status == .ok && Self.recoveryCodes(in: confirmed).count == 10)

        #expect((await browser.send(.GET, "/inbox/dashboard")).status == .ok, "the session that turned it on stays")
        #expect((await other.send(.GET, "/inbox/dashboard")).status != .ok, "a password's session ended")
        #expect((await pasted.send(.GET, "/inbox/dashboard")).status != .ok, "every other session ended")
        let (after, otherAfter) = (await me(jwt), await me(otherJWT))
        #expect(after == .unauthorized && otherAfter == .unauthorized, "password JWTs ended")
        #expect(await me(apiToken) == .ok, "an API token made on purpose stays")
    }

    @Test("a session a pasted tm_pro_ token opened, however recent, is no proof for the two-step pages", arguments: [StorageBackend.sqlite])
    func tokenSessionIsNoProof(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let (adaID, jwt) = try await harness.proLogin(Self.email)
        let token = try await harness.apiToken(bearer: jwt)
        let factors = try #require(harness.service.secondFactors)
        let secret = try #require(try await factors.secretToConfirm(holder: adaID))
        #expect(try await factors.confirm(holder: adaID, code: Self.code(secret, harness))?.count == 10)

        let browser = harness.browser()
        #expect(try await browser.signIn(["kind": "pro", "token": token]).status == .seeOther)
        let page = await browser.send(.GET, "/inbox/two-step")
        #expect(page.status == .ok && page.text.contains("data-state=\"on\""))
        let csrf = try #require(Browser.csrf(in: page))
        for action in ["disable", "recovery-codes"] {
            let answer = await browser.send(.POST, "/inbox/two-step/" + action, form: ["csrf_token": csrf])
            #expect(answer.status == .forbidden)
        }
        #expect(try await factors.state(holder: adaID) == .on(recoveryCodesLeft: 10))
    }

    @Test("off: no second step and no /inbox/two-step", arguments: [StorageBackend.sqlite])
    func off(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend) { $0.proSecondFactor = .off }
        _ = try await harness.proLogin(Self.email)
        let browser = harness.browser()
        #expect(try await Self.password(harness, browser).headers["Location"] == "/inbox")
        #expect((await browser.send(.GET, "/inbox/two-step")).status == .notFound)
        #expect(!(await browser.send(.GET, "/inbox/dashboard")).text.contains("two-step-link"))
    }

    @Test("POSTERN_PRO_SECOND_FACTOR: off, optional, required-for-passwords; the owners' stricter value refused")
    func configuration() throws {
        func read(_ value: String?) throws -> WebInboxConfiguration {
            try WebInboxConfiguration(config: ConfigurationReader { $0 == "POSTERN_PRO_SECOND_FACTOR" ? value : nil })
        }
        #expect(try read(nil).proSecondFactor == .optional)
        #expect(try read("off").proSecondFactor == .off)
        #expect(try read("required-for-passwords").proSecondFactor == .requiredForPasswords)
        #expect(throws: ConfigurationError.self) { try read("required-except-passkeys") }
        #expect(throws: ConfigurationError.self) { try read("sometimes") }
    }
}
