import HTTP1
import PosternTestSupport
import Storage
import Testing
import WebInbox

/// A web-inbox session ends with the credential it was opened with: a password reset, the pasted API token's
/// revocation, the linked address coming to another account. Each is a 303 to the sign-in page on the next request.
@Suite("Web inbox: what a session rests on", .serialized)
struct WebInboxSessionBindingTests {
    static func signedOut(_ browser: Browser, _ path: String) async -> Bool {
        let answer = await browser.send(.GET, path)
        return answer.status == .seeOther && answer.headers["Location"] == "/inbox/sign-in"
    }

    @Test(
        "a password reset ends the account's web-inbox sessions, as it ends its API tokens",
        arguments: StorageBackend.allCases)
    func passwordReset(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let id = try await harness.account("reset@mail.localhost", password: "secret-one")
        let browser = harness.browser()
        let signedIn = try await browser.signIn(
            ["kind": "account", "address": "reset@mail.localhost", "password": "secret-one"])
        #expect(signedIn.status == .seeOther)
        #expect(await browser.send(.GET, "/inbox/m/reset%40mail.localhost").status == .ok)
        let api = harness.browser()
        let login = await api.send(
            .POST, "/api/token", json: #"{"address":"reset@mail.localhost","password":"secret-one"}"#)
        let bearer = try #require(WebInboxHarness.jsonField("token", login))
        let reset = await api.send(
            .PUT, "/api/accounts/" + id + "/reset-password", json: #"{"password":"secret-two"}"#,
            headers: [("Authorization", "Bearer " + bearer)])
        #expect(reset.status == .ok)
        #expect(await Self.signedOut(browser, "/inbox/m/reset%40mail.localhost"))
        let again = harness.browser()
        #expect(try await again.signIn(["kind": "account", "address": "reset@mail.localhost", "password": "secret-two"])
            .status == .seeOther)
        #expect(await again.send(.GET, "/inbox/m/reset%40mail.localhost").status == .ok)
    }

    @Test(
        "revoking the tm_pro_ token a Pro user signed in with ends that session, not one opened by password",
        arguments: StorageBackend.allCases)
    func revokedToken(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        let made = await harness.browser().send(
            .POST, "/api/user/tokens", json: #"{"name":"pasted"}"#, headers: [("Authorization", "Bearer " + pro.jwt)])
        let token = try #require(WebInboxHarness.jsonField("token", made))
        let tokenID = try #require(WebInboxHarness.jsonField("id", made))
        let byToken = harness.browser(), byPassword = harness.browser()
        #expect(try await byToken.signIn(["kind": "pro", "token": token]).status == .seeOther)
        #expect(try await byPassword.signIn(["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
            .status == .seeOther)
        #expect(await byToken.send(.GET, "/inbox").status == .ok)

        let revoked = await harness.browser().send(
            .DELETE, "/api/user/tokens/" + tokenID, headers: [("Authorization", "Bearer " + pro.jwt)])
        #expect(revoked.status.code < 300)
        #expect(await Self.signedOut(byToken, "/inbox"))
        #expect(await byToken.send(.GET, "/inbox/dashboard").status == .notFound)  // as to anyone signed out
        #expect(await byPassword.send(.GET, "/inbox").status == .ok)
    }

    @Test(
        "a linked session reads the account that had the address; another account at it later is not opened",
        arguments: StorageBackend.allCases)
    func linkFollowsTheAccount(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let id = try await harness.account("linked@mail.localhost", password: "secret-one")
        let link = try await harness.service.sessions.makeLink(address: "linked@mail.localhost", lifetime: 600)
        let browser = harness.browser()
        let page = await browser.send(.GET, "/inbox/link/" + link)
        let csrf = try #require(Browser.csrf(in: page))
        #expect(await browser.send(.POST, "/inbox/link", form: ["token": link, "csrf_token": csrf]).status == .seeOther)
        #expect(await browser.send(.GET, "/inbox/m/linked%40mail.localhost").status == .ok)

        let api = harness.browser()
        let login = await api.send(
            .POST, "/api/token", json: #"{"address":"linked@mail.localhost","password":"secret-one"}"#)
        let bearer = try #require(WebInboxHarness.jsonField("token", login))
        #expect(await api.send(.DELETE, "/api/accounts/" + id, headers: [("Authorization", "Bearer " + bearer)])
            .status.code < 300)
        try await harness.account("linked@mail.localhost", password: "someone-else")
        try await harness.deliver(WebInboxHarness.plain(subject: "For the new holder"), to: "linked@mail.localhost")
        #expect(await Self.signedOut(browser, "/inbox/m/linked%40mail.localhost"))
    }
}

@Suite("Web inbox: the purge", .serialized)
struct WebInboxPurgeTests {
    static func rows(_ harness: WebInboxHarness, _ table: String) async throws -> Int {
        let counted: Int64? = try await harness.test.database.read { connection in
            try connection.query("SELECT count(*) AS n FROM \(table)").first?.int("n")
        }
        return Int(counted ?? -1)
    }

    @Test("expired sessions and one-time links go; live ones stay", arguments: StorageBackend.allCases)
    func expiredGo(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account("kept@mail.localhost", password: "secret-one")
        let browser = harness.browser()
        let signedIn = try await browser.signIn(
            ["kind": "account", "address": "kept@mail.localhost", "password": "secret-one"])
        #expect(signedIn.status == .seeOther)
        _ = try await harness.service.sessions.makeLink(address: "kept@mail.localhost", lifetime: 600)
        let purge = { (now: Int64) async throws -> Int in
            try await harness.test.database.write { connection in try WebInboxPurge.run(connection, now: now) }
        }

        #expect(try await purge(harness.clock.now) == 0)
        #expect(try await Self.rows(harness, "web_inbox_links") == 1)
        #expect(try await purge(harness.clock.now + 601) == 1)  // the link (10 minutes)
        #expect(try await Self.rows(harness, "web_inbox_links") == 0)
        #expect(try await Self.rows(harness, "web_inbox_sessions") == 1)
        #expect(try await purge(harness.clock.now + 12 * 3600) == 1)  // the session (12 hours)
        #expect(try await Self.rows(harness, "web_inbox_sessions") == 0)
    }
}
