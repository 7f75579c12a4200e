import AppPasswords
import HTTP1
import MailSignIn
import PosternTestSupport
import Testing

/// The Pro dashboard's app passwords (issue 87 item 2): made for one of the user's own accounts at IMAP or POP3 (a
/// Mail.td account sends nothing), only on a fresh sign-in, shown once; the mail sign-in opens that account with it;
/// revoked, it opens nothing.
@Suite("Web inbox: the Pro dashboard's app passwords", .serialized)
struct ProAppPasswordTests {
    static let path = "/inbox/dashboard/app-passwords"

    @Test("made for one's own account on a fresh sign-in and shown once; a stale session signs in again; revoked",
        arguments: StorageBackend.allCases)
    func flow(_ backend: StorageBackend) async throws {
        let (harness, browser, userID, jwt) = try await WebInboxDashboardTests.signedIn(backend)
        try await harness.account("one@pro.localhost", bearer: jwt)
        let other = try await harness.proUser("other@example.com")
        try await harness.account("two@pro.localhost", bearer: other)
        let store = AppPasswordStore(database: harness.test.database, limit: 20)
        func error() async -> String? {
            WebInboxDashboardTests.element("error", in: String(decoding: await browser.send(.GET, "/inbox/dashboard").body, as: UTF8.self))
        }

        let foreign = try await WebInboxDashboardTests.post(
            browser, Self.path, ["name": "phone", "account": "two@pro.localhost", "door": "imap"])
        #expect(foreign.status == .seeOther)
        #expect(await error() == "Choose one of your accounts.")
        _ = try await WebInboxDashboardTests.post(
            browser, Self.path, ["name": "phone", "account": "one@pro.localhost", "door": "submission"])
        #expect(await error() == "Tick IMAP, POP3 or both.")
        #expect(try await store.list(.proUser(userID)).isEmpty)

        let made = try await WebInboxDashboardTests.post(
            browser, Self.path, ["name": "phone", "account": "one@pro.localhost", "door": "imap"])
        #expect(made.status == .seeOther && made.headers["Location"] == "/inbox/dashboard")
        let page = String(decoding: await browser.send(.GET, "/inbox/dashboard").body, as: UTF8.self)
        let secret = try #require(WebInboxDashboardTests.element("app-password-shown", in: page))
        let password = try #require(try await store.list(.proUser(userID)).first)
        #expect(password.address == "one@pro.localhost" && password.doors == .imap && password.name == "phone")
        let again = String(decoding: await browser.send(.GET, "/inbox/dashboard").body, as: UTF8.self)
        #expect(!again.contains("app-password-shown") && again.contains("id=\"app-password-\(password.id)\""))

        // The mail sign-in opens the account with it, at its door, as an account that sends nothing.
        let imap = try await harness.mailCredentials.signIn(
            at: .imap, username: "one@pro.localhost", password: secret, client: "192.0.2.9")
        #expect({ if case .signedIn(let mailbox) = imap { !mailbox.sends && mailbox.address == "one@pro.localhost" } else { false } }())
        let pop = try await harness.mailCredentials.signIn(
            at: .pop3, username: "one@pro.localhost", password: secret, client: "192.0.2.9")
        #expect({ if case .refused = pop { true } else { false } }())

        // Past the window: nothing made; the sign-in page asks again and comes back to the dashboard.
        harness.clock.advance(harness.service.configuration.freshProof.window + 1)
        let stale = try await WebInboxDashboardTests.post(
            browser, Self.path, ["name": "laptop", "account": "one@pro.localhost", "door": "pop3"])
        #expect(stale.status == .seeOther && stale.headers["Location"] == "/inbox/sign-in?again=1")
        #expect(try await store.list(.proUser(userID)).count == 1)
        let form = await browser.send(.GET, "/inbox/sign-in?again=1")
        let text = String(decoding: form.body, as: UTF8.self)
        #expect(form.status == .ok && text.contains("Sign in again") && text.contains("name=\"next\" value=\"/inbox/dashboard\""))
        let back = await browser.send(
            .POST, "/inbox/sign-in",
            form: [
                "kind": "pro", "email": "pro@example.com", "password": "pro-password", "next": "/inbox/dashboard",
                "csrf_token": try #require(Browser.csrf(in: form)),
            ])
        #expect(back.headers["Location"] == "/inbox/dashboard")
        _ = try await WebInboxDashboardTests.post(
            browser, Self.path, ["name": "laptop", "account": "one@pro.localhost", "door": "pop3"])
        #expect(try await store.list(.proUser(userID)).count == 2)

        // Revoked: it opens nothing at once; another user's id is the 404.
        #expect(try await WebInboxDashboardTests.post(browser, Self.path + "/\(password.id)/revoke").status == .seeOther)
        #expect(try await store.find(secret) == nil)
        #expect(try await WebInboxDashboardTests.post(browser, Self.path + "/\(password.id)/revoke").status == .notFound)
        let revoked = try await harness.mailCredentials.signIn(
            at: .imap, username: "one@pro.localhost", password: secret, client: "198.51.100.3")
        #expect({ if case .refused = revoked { true } else { false } }())
    }
}
