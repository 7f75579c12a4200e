import AgentAuth
import AppPasswords
import HTTP1
import Owners
import PosternTestSupport
import SignInMethods
import Synchronization
import Testing

/// `/owner/app-passwords` (issue 87 items 2 and 4): made only on a fresh sign-in, for an inbox the owner holds, shown
/// once, listed, revoked; the Apple Mail profile carries a new one.
@Suite("Owners: app passwords on /owner/app-passwords")
struct OwnerAppPasswordPagesTests {
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test("the fresh-proof rule: within the window either side of now, never without a sign-in")
    func freshProofRule() {
        let rule = FreshProof(window: 300)
        #expect(rule.holds(provenAt: 1_000, now: 1_000))
        #expect(rule.holds(provenAt: 1_000, now: 1_300))
        #expect(!rule.holds(provenAt: 1_000, now: 1_301))
        #expect(!rule.holds(provenAt: nil, now: 1_000))
        // A sign-in time ahead of the clock (a clock stepped back) is fresh only within the window.
        #expect(rule.holds(provenAt: 1_300, now: 1_000))
        #expect(!rule.holds(provenAt: 1_301, now: 1_000))
    }

    @Test(
        "made on a fresh sign-in for one's own inbox and shown once; a stale session signs in again and comes back; revoked",
        arguments: StorageBackend.allCases)
    func flow(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let clock = harness.clock
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: harness.test.database), domain: "agents.localhost",
            clock: { clock.now })
        let store = AppPasswordStore(database: harness.test.database, limit: 5)
        let profiles = Mutex<[(String, String)]>([])
        OwnerAppPasswordPages(
            service: harness.service, inboxes: inboxes, store: store,
            appleMail: { address, password in
                profiles.withLock { $0.append((address, password)) }
                return Array("<plist/>".utf8)
            }, clock: { clock.now }
        ).register(into: &harness.router)
        #expect(await harness.send(.GET, "/owner/app-passwords").headers["Location"]
            == "/owner/sign-in?next=%2Fowner%2Fapp-passwords")
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        let own = try await inboxes.createInbox(username: "ada-bot", ownerID: ada.id).inbox
        let foreign = try await inboxes.createInbox(username: "bob-bot", ownerID: bob.id).inbox
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/app-passwords")))
        func make(_ inbox: String, doors: [String] = ["imap", "submission"], name: String = "mutt <laptop>") async
            -> HTTPResponse
        {
            await harness.browser.send(
                .POST, "/owner/app-passwords",
                form: [("name", name), ("inbox", inbox), ("csrf_token", csrf)] + doors.map { ("door", $0) },
                through: harness.router)
        }

        #expect(await make(foreign.accountID).status.code == 422)
        #expect(await make(own.accountID, doors: []).status.code == 422)
        #expect(await make(own.accountID, doors: ["jmap"]).status.code == 422)
        #expect(await make(own.accountID, name: " ").status.code == 422)
        #expect(try await store.list(.owner(ada.id)).isEmpty)

        let made = await make(own.accountID)
        #expect(made.status.code == 201)
        let password = try #require(try await store.list(.owner(ada.id)).first)
        #expect(password.accountID == own.accountID && password.address == own.address)
        #expect(password.doors == [.imap, .submission] && password.name == "mutt <laptop>")
        let page = Self.text(made)
        let secret = try #require(page.range(of: "<pre id=\"app-password-secret\" class=\"key\">").map {
            String(page[$0.upperBound...].prefix { $0 != "<" })
        })
        #expect(try await store.find(secret) == password)
        #expect(page.contains("mutt &lt;laptop&gt;") && !page.contains("mutt <laptop>"))
        let listed = Self.text(await harness.send(.GET, "/owner/app-passwords"))
        #expect(!listed.contains("app-password-secret") && !listed.contains(secret))
        #expect(listed.contains("id=\"app-password-\(password.id)\"") && listed.contains("never"))

        // Past the window: nothing is made, the browser is sent to sign in again and back.
        clock.advance(harness.service.configuration.freshProof.window + 1)
        let stale = await make(own.accountID, name: "phone")
        #expect(stale.status == .seeOther)
        #expect(stale.headers["Location"] == "/owner/sign-in?again=1&next=%2Fowner%2Fapp-passwords")
        #expect(await harness.browser.send(
            .POST, "/owner/app-passwords/apple-mail", form: [("inbox", own.accountID), ("csrf_token", csrf)],
            through: harness.router
        ).status == .seeOther)
        #expect(try await store.list(.owner(ada.id)).count == 1 && profiles.withLock { $0.isEmpty })
        let again = await harness.send(.GET, "/owner/sign-in?again=1&next=%2Fowner%2Fapp-passwords")
        #expect(again.status == .ok && Self.text(again).contains("Sign in again"))
        let signedIn = await harness.send(
            .POST, "/owner/sign-in",
            form: [
                "email": "ada@example.com", "password": "correct horse", "next": "/owner/app-passwords",
                "csrf_token": try #require(OwnersHarness.csrf(in: again)),
            ])
        #expect(signedIn.headers["Location"] == "/owner/app-passwords")
        let fresh = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/app-passwords")))

        // The Apple Mail profile: a new app password for IMAP and submission, inside the download.
        let download = await harness.browser.send(
            .POST, "/owner/app-passwords/apple-mail", form: [("inbox", own.accountID), ("csrf_token", fresh)],
            through: harness.router)
        #expect(download.status == .ok && download.body == Array("<plist/>".utf8))
        #expect(download.headers["Content-Type"] == "application/x-apple-aspen-config")
        #expect(download.headers["Content-Disposition"] == "attachment; filename=\"postern-ada-bot.mobileconfig\"")
        #expect(download.headers["Cache-Control"] == "no-store")
        let (profileAddress, profileSecret) = try #require(profiles.withLock { $0.first })
        let apple = try #require(try await store.find(profileSecret))
        #expect(profileAddress == own.address && apple.name == "Apple Mail" && apple.doors == [.imap, .submission])

        // Revoked: gone at once; another owner's, or one already gone, is a 404.
        let revoke = await harness.send(
            .POST, "/owner/app-passwords/\(password.id)/revoke", form: ["csrf_token": fresh])
        #expect(revoke.status == .ok)
        #expect(try await store.find(secret) == nil)
        #expect(await harness.send(.POST, "/owner/app-passwords/\(password.id)/revoke", form: ["csrf_token": fresh])
            .status.code == 404)
        #expect(await harness.send(.POST, "/owner/app-passwords/\(apple.id)/revoke", form: ["csrf_token": "x"])
            .status.code == 403)
        let actions = try await harness.auditLog.events(since: nil, ownerID: ada.id, limit: 20).map(\.action.rawValue)
        #expect(actions.filter { $0 == "app_password.created" }.count == 2)
        #expect(actions.filter { $0 == "app_password.revoked" }.count == 1)
    }
}
