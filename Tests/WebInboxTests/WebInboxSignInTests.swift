import HTTP1
import PosternTestSupport
import Testing

@testable import WebInbox

/// Who signs in to the web inbox, and what each sees: Mail.td accounts (v1 and v2), Pro users (password or API
/// token), owners (their owner session), one-time links; the backoff; and nobody reads another's mailbox.
@Suite("Web inbox: sign-in and isolation", .serialized)
struct WebInboxSignInTests {
    @Test(
        "a v2 account signs in with address and password and lands in its own mailbox; a wrong password is a 401",
        arguments: StorageBackend.allCases)
    func accountSignIn(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account("reader@mail.localhost", password: "secret-one")
        let stranger = harness.browser()
        let wrong = try await stranger.signIn(["kind": "account", "address": "reader@mail.localhost", "password": "nope-nope"])
        #expect(wrong.status == .unauthorized)
        #expect(stranger.jar.cookies[WebInboxService.sessionCookie] == nil)

        let browser = harness.browser()
        let signedIn = try await browser.signIn(
            ["kind": "account", "address": "Reader@mail.localhost", "password": "secret-one"])
        #expect(signedIn.status == .seeOther)
        let cookie = try #require(signedIn.headers.values("Set-Cookie").first { $0.hasPrefix("postern_inbox=") })
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        let home = await browser.send(.GET, "/inbox")
        #expect(home.status == .seeOther)
        #expect(home.headers["Location"] == "/inbox/m/reader%40mail.localhost")
        let list = await browser.send(.GET, "/inbox/m/reader%40mail.localhost")
        #expect(list.status == .ok)
        #expect(list.text.contains("id=\"signed-in-as\">reader<wbr>@mail.<wbr>localhost<"))
    }

    @Test(
        "what a session may read is asked on every request: once its account is deleted it reads nothing",
        arguments: StorageBackend.allCases)
    func deletedAccount(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let id = try await harness.account("brief@mail.localhost", password: "secret-one")
        let browser = harness.browser()
        #expect(try await browser.signIn(["kind": "account", "address": "brief@mail.localhost", "password": "secret-one"])
            .status == .seeOther)
        #expect(await browser.send(.GET, "/inbox/m/BRIEF%40mail.localhost").status == .ok)
        let api = harness.browser()
        let login = await api.send(
            .POST, "/api/token", json: #"{"address":"brief@mail.localhost","password":"secret-one"}"#)
        let token = try #require(WebInboxHarness.jsonField("token", login))
        let deleted = await api.send(.DELETE, "/api/accounts/" + id, headers: [("Authorization", "Bearer " + token)])
        #expect(deleted.status.code < 300)
        // The session rested on the account: it is over, and the browser is asked to sign in again.
        for path in ["/inbox/m/brief%40mail.localhost", "/inbox"] {
            let answer = await browser.send(.GET, path)
            #expect(answer.status == .seeOther && answer.headers["Location"] == "/inbox/sign-in", "\(path)")
        }
    }

    @Test(
        "a v1 account (a password hash stored before auth_key) signs in with its password",
        arguments: StorageBackend.allCases)
    func legacyAccountSignIn(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.legacyAccount("old@mail.localhost", password: "old-secret")
        let browser = harness.browser()
        let signedIn = try await browser.signIn(["kind": "account", "address": "old@mail.localhost", "password": "old-secret"])
        #expect(signedIn.status == .seeOther)
        let list = await browser.send(.GET, "/inbox/m/old%40mail.localhost")
        #expect(list.status == .ok)
    }

    @Test(
        "a Pro user signs in by email and password, or by an API token, and sees each of their accounts, no other",
        arguments: StorageBackend.allCases)
    func proSignIn(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let jwt = try await harness.proUser("pro@example.com")
        try await harness.account("one@pro.localhost", bearer: jwt)
        try await harness.account("two@pro.localhost", bearer: jwt)
        let otherJWT = try await harness.proUser("rival@example.com")
        try await harness.account("rival@pro.localhost", bearer: otherJWT)
        let rivalMessage = try await harness.deliver(WebInboxHarness.plain(subject: "Rival's"), to: "rival@pro.localhost")

        let byPassword = harness.browser()
        let signedIn = try await byPassword.signIn(["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
        #expect(signedIn.status == .seeOther)
        let home = await byPassword.send(.GET, "/inbox")
        #expect(home.status == .ok)
        #expect(home.text.contains("id=\"signed-in-as\">pro<wbr>@example.<wbr>com<"))
        #expect(home.text.contains("one<wbr>@pro.<wbr>localhost"))
        #expect(home.text.contains("two<wbr>@pro.<wbr>localhost"))
        #expect(!home.text.contains("rival@pro.localhost"))
        #expect(await byPassword.send(.GET, "/inbox/m/two%40pro.localhost").status == .ok)
        #expect(await byPassword.send(.GET, "/inbox/m/rival%40pro.localhost").status == .notFound)
        #expect(await byPassword.send(.GET, "/inbox/m/rival%40pro.localhost/\(rivalMessage)").status == .notFound)

        let byToken = harness.browser()
        let token = try await harness.apiToken(bearer: jwt)
        #expect(try await byToken.signIn(["kind": "pro", "token": token]).status == .seeOther)
        #expect(await byToken.send(.GET, "/inbox/m/one%40pro.localhost").status == .ok)
        let badToken = harness.browser()
        #expect(try await badToken.signIn(["kind": "pro", "token": token + "x"]).status == .unauthorized)
    }

    @Test(
        "a Pro user's SMTP sandbox is one of their mailboxes; another user's sandbox is a 404",
        arguments: StorageBackend.allCases)
    func proSandbox(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        let rival = try await harness.proLogin("rival@example.com")
        let raw = Array("From: app@example.com\r\nTo: user@example.org\r\nSubject: Captured\r\n\r\nHi.\r\n".utf8)
        _ = try await harness.sandbox.captureInSandbox(
            owner: pro.id, mailFrom: "app@example.com", recipients: ["user@example.org"], clientIP: "192.0.2.1",
            raw: raw, authResults: nil)
        _ = try await harness.sandbox.captureInSandbox(
            owner: rival.id, mailFrom: "app@example.com", recipients: ["user@example.org"], clientIP: "192.0.2.1",
            raw: raw, authResults: nil)
        let own = try #require(try await harness.sandbox.sandboxAddress(proUserID: pro.id))
        let other = try #require(try await harness.sandbox.sandboxAddress(proUserID: rival.id))
        let browser = harness.browser()
        #expect(try await browser.signIn(["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
            .status == .seeOther)
        let home = await browser.send(.GET, "/inbox")  // a Pro user's home lists even one mailbox
        #expect(home.status == .ok)
        #expect(home.text.contains("id=\"signed-in-as\">pro<wbr>@example.<wbr>com<"))
        #expect(home.text.contains("href=\"/inbox/m/" + PercentEncoding.encode(own) + "\""))
        #expect(!home.text.contains(PercentEncoding.encode(other)))
        let list = await browser.send(.GET, "/inbox/m/" + PercentEncoding.encode(own))
        #expect(list.status == .ok)
        #expect(list.text.contains("Captured"))
        #expect(await browser.send(.GET, "/inbox/m/" + PercentEncoding.encode(other)).status == .notFound)
    }

    @Test(
        "an owner reads their inboxes through the owner session; another owner's inbox and messages are a 404",
        arguments: StorageBackend.allCases)
    func ownerIsolation(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let adaOwner = try await harness.owner("ada@example.com", inbox: "ada-bot")
        let bobOwner = try await harness.owner("bob@example.com", inbox: "bob-bot")
        let ada = adaOwner.browser, bob = bobOwner.browser
        let adaInbox = adaOwner.inbox, bobInbox = bobOwner.inbox
        let adaMessage = try await harness.deliver(WebInboxHarness.plain(subject: "For Ada"), to: adaInbox)
        let bobMessage = try await harness.deliver(WebInboxHarness.plain(subject: "For Bob"), to: bobInbox)
        let ada1 = "/inbox/m/" + PercentEncoding.encode(adaInbox)
        let bob1 = "/inbox/m/" + PercentEncoding.encode(bobInbox)

        #expect(await ada.send(.GET, "/inbox").headers["Location"] == ada1)
        let list = await ada.send(.GET, ada1)
        #expect(list.status == .ok)
        #expect(list.text.contains("For Ada"))
        #expect(await ada.send(.GET, ada1 + "/" + adaMessage).status == .ok)
        for path in [bob1, bob1 + "/" + bobMessage, bob1 + "/" + bobMessage + "/raw", bob1 + "/" + bobMessage + "/html"] {
            #expect(await ada.send(.GET, path).status == .notFound, "\(path)")
        }
        // Bob's message id asked for under Ada's own mailbox is not found either.
        #expect(await ada.send(.GET, ada1 + "/" + bobMessage).status == .notFound)
        #expect(await ada.send(.GET, ada1 + "/" + bobMessage + "/raw").status == .notFound)
        let page = await ada.send(.GET, ada1 + "/" + adaMessage)
        let csrf = try #require(Browser.csrf(in: page))
        #expect(await ada.send(.POST, ada1 + "/" + bobMessage + "/delete", form: ["csrf_token": csrf]).status == .notFound)
        #expect(try await harness.mail.exists(address: bobInbox, id: bobMessage))
        #expect(await bob.send(.GET, bob1 + "/" + bobMessage).status == .ok)

        let nobody = harness.browser()
        let anonymous = await nobody.send(.GET, ada1)
        #expect(anonymous.status == .seeOther)
        #expect(anonymous.headers["Location"] == "/inbox/sign-in")
    }

    @Test(
        "a one-time link opens its mailbox once: the GET only shows a button, the POST uses it, again is a 404",
        arguments: StorageBackend.allCases)
    func oneTimeLink(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account("tests@mail.localhost")
        try await harness.deliver(WebInboxHarness.plain(subject: "From the test"), to: "tests@mail.localhost")
        let token = try await harness.service.sessions.makeLink(address: "tests@mail.localhost", lifetime: 600)
        let browser = harness.browser()
        let page = await browser.send(.GET, "/inbox/link/" + token)
        #expect(page.status == .ok)
        let again = await browser.send(.GET, "/inbox/link/" + token)
        let csrf = try #require(Browser.csrf(in: again))
        #expect(await browser.send(.POST, "/inbox/link", form: ["token": token]).status == .forbidden)
        let used = await browser.send(.POST, "/inbox/link", form: ["token": token, "csrf_token": csrf])
        #expect(used.status == .seeOther)
        let list = await browser.send(.GET, "/inbox/m/tests%40mail.localhost")
        #expect(list.status == .ok)
        #expect(list.text.contains("From the test"))

        let second = harness.browser()
        let secondPage = await second.send(.GET, "/inbox/link/" + token)
        let secondCSRF = try #require(Browser.csrf(in: secondPage))
        #expect(await second.send(.POST, "/inbox/link", form: ["token": token, "csrf_token": secondCSRF]).status == .notFound)

        let late = try await harness.service.sessions.makeLink(address: "tests@mail.localhost", lifetime: 600)
        harness.clock.advance(601)
        let third = harness.browser()
        let thirdPage = await third.send(.GET, "/inbox/link/" + late)
        let thirdCSRF = try #require(Browser.csrf(in: thirdPage))
        #expect(await third.send(.POST, "/inbox/link", form: ["token": late, "csrf_token": thirdCSRF]).status == .notFound)
    }

    @Test(
        "failed sign-ins slow that address as the owner sign-in does; the right password waits out the block",
        arguments: StorageBackend.allCases)
    func backoff(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account("slow@mail.localhost", password: "right-one")
        let browser = harness.browser()
        for _ in 0..<6 {
            let wrong = try await browser.signIn(["kind": "account", "address": "slow@mail.localhost", "password": "wrong-one"])
            #expect(wrong.status == .unauthorized)
        }
        let blocked = try await browser.signIn(["kind": "account", "address": "slow@mail.localhost", "password": "right-one"])
        #expect(blocked.status == .tooManyRequests)
        #expect(blocked.headers["Retry-After"] != nil)
        harness.clock.advance(3)
        let signedIn = try await browser.signIn(["kind": "account", "address": "slow@mail.localhost", "password": "right-one"])
        #expect(signedIn.status == .seeOther)
    }

    @Test(
        "a sign-in, a sign-out or an action without the browser's CSRF token is a 403 and changes nothing",
        arguments: StorageBackend.allCases)
    func csrf(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account("csrf@mail.localhost", password: "secret-one")
        let id = try await harness.deliver(WebInboxHarness.plain(subject: "Keep me"), to: "csrf@mail.localhost")
        let browser = harness.browser()
        _ = await browser.send(.GET, "/inbox/sign-in")
        let forged = await browser.send(
            .POST, "/inbox/sign-in",
            form: ["kind": "account", "address": "csrf@mail.localhost", "password": "secret-one", "csrf_token": "forged"])
        #expect(forged.status == .forbidden)
        #expect(browser.jar.cookies[WebInboxService.sessionCookie] == nil)
        #expect(try await browser.signIn(["kind": "account", "address": "csrf@mail.localhost", "password": "secret-one"])
            .status == .seeOther)
        let path = "/inbox/m/csrf%40mail.localhost/" + id
        #expect(await browser.send(.POST, path + "/delete", form: [:]).status == .forbidden)
        #expect(await browser.send(.POST, path + "/delete", form: ["csrf_token": "forged"]).status == .forbidden)
        #expect(try await harness.mail.exists(address: "csrf@mail.localhost", id: id))
        #expect(await browser.send(.POST, "/inbox/sign-out", form: [:]).status == .forbidden)
        let page = await browser.send(.GET, path)
        let token = try #require(Browser.csrf(in: page))
        let deleted = await browser.send(.POST, path + "/delete", form: ["csrf_token": token])
        #expect(deleted.status == .seeOther)
        #expect(try await !harness.mail.exists(address: "csrf@mail.localhost", id: id))
        #expect(await browser.send(.POST, "/inbox/sign-out", form: ["csrf_token": token]).status == .seeOther)
        #expect(await browser.send(.GET, "/inbox/m/csrf%40mail.localhost").status == .seeOther)
    }
}
