import AgentAuth
import Directory
import MIME
import MailStore
import HTTP1
import Owners
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// `/owner` through its routes: inboxes (create, link, rotate) and connected apps (revoke).
@Suite("Owners: the inboxes and apps page")
struct OwnerInboxPagesTests {
    /// A harness with the page routed and Ada signed in; her id and the page's CSRF token.
    static func signedIn(
        _ backend: StorageBackend, revoked: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws
        -> (OwnersHarness, ownerID: String, csrf: String)
    {
        let harness = try OwnersHarness(backend)
        harness.routeInboxPages(revoked: revoked)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let signIn = try await harness.signIn("ada@example.com", "correct horse")
        #expect(signIn.headers["Location"] == "/owner")
        let page = await harness.send(.GET, "/owner")
        #expect(page.status.code == 200 && page.text.contains("id=\"no-inboxes\"") && page.text.contains("id=\"no-apps\""))
        return (harness, ada.id, try #require(OwnersHarness.csrf(in: page)))
    }

    /// A second owner, Bob; his id.
    static func bob(_ harness: OwnersHarness) async throws -> String {
        try await harness.service.owners.create(email: "bob@example.com", password: "correct horse").id
    }

    @Test(
        "signed out, the page and every post go to the sign-in page, which comes back to /owner",
        arguments: StorageBackend.allCases, [
        (HTTPMethod.GET, "/owner"), (.POST, "/owner/inboxes"), (.POST, "/owner/inboxes/link"),
        (.POST, "/owner/inboxes/00000000-0000-4000-8000-000000000000/rotate-key"),
        (.POST, "/owner/inboxes/00000000-0000-4000-8000-000000000000/unlink"),
        (.POST, "/owner/inboxes/00000000-0000-4000-8000-000000000000/delete"),
        (.POST, "/owner/apps/00000000-0000-4000-8000-000000000000/revoke"),
    ])
    func signedOut(_ backend: StorageBackend, _ request: (HTTPMethod, String)) async throws {
        let (method, path) = request
        let harness = try OwnersHarness(backend)
        harness.routeInboxPages()
        let response = await harness.send(method, path, form: method == .POST ? ["username": "ada-bot"] : nil)
        #expect(response.status.code == 303 && response.headers["Location"] == "/owner/sign-in?next=%2Fowner")
    }

    @Test(
        "creating an inbox answers 303 (a refresh posts nothing again); the page it leads to shows the key once",
        arguments: StorageBackend.allCases)
    func create(_ backend: StorageBackend) async throws {
        let (harness, ownerID, csrf) = try await Self.signedIn(backend)
        let created = await harness.send(.POST, "/owner/inboxes", form: ["username": "ada-bot", "csrf_token": csrf])
        #expect(created.status.code == 303 && created.headers["Location"] == "/owner")
        #expect(created.headers["Cache-Control"] == "no-store" && created.body.isEmpty)
        let sealed = try #require(harness.cookies["postern_key"])
        #expect(created.headers.values("Set-Cookie").allSatisfy { !$0.contains("postern_ak_") })
        #expect(created.headers.values("Set-Cookie").contains { $0.hasPrefix("postern_key=") && $0.contains("Path=/owner;") })
        let inbox = try #require(try await harness.ownedInboxes.inboxes(ownerID: ownerID).first)

        let shown = await harness.send(.GET, "/owner")
        #expect(shown.status.code == 200 && shown.headers["Cache-Control"] == "no-store")
        let key = try #require(shown.text.firstMatch(of: /id="api-key" class="key">(postern_ak_[^<]+)</)?.1)
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(String(key)))?.id == inbox.accountID)
        #expect(shown.text.contains("ada-bot@agents.localhost") && shown.text.contains("shown this once"))
        #expect(harness.cookies["postern_key"] == nil)

        // The sealed cookie is bound to Ada's session: replayed in another session (Bob's) it reads nothing.
        _ = try await Self.bob(harness)
        try await harness.signInFresh("bob@example.com", "correct horse")
        harness.cookies["postern_key"] = sealed
        let replayed = await harness.send(.GET, "/owner")
        #expect(replayed.status.code == 200 && !replayed.text.contains(String(key)) && !replayed.text.contains("id=\"api-key\""))
        try await harness.signInFresh("ada@example.com", "correct horse")

        let later = await harness.send(.GET, "/owner")
        #expect(!later.text.contains(String(key)) && !later.text.contains("id=\"api-key\""))
        #expect(later.text.contains("data-account-id=\"\(inbox.accountID)\""))
        // The address breaks only before its @ and after its dots (`<wbr>`), never mid-word.
        #expect(
            later.text.contains(
                "<td class=\"address\" data-label=\"Address\"><span class=\"inbox-address\">ada-bot<wbr>@agents.<wbr>localhost</span>"))
        #expect(later.text.contains("<td class=\"status\" data-label=\"Status\">active</td>"))
    }

    @Test(
        "a bad, reserved or taken username is shown plainly beside the form, with what was typed",
        arguments: StorageBackend.allCases, [
        ("a", 422, "Use 5 to 21"), ("bad name!", 422, "Use 5 to 21"), ("admin", 422, "reserved"),
        ("taken-one", 409, "That address is taken"), (String(repeating: "x", count: 300), 422, "Use 5 to 21"),
    ])
    func createRefused(_ backend: StorageBackend, _ row: (String, Int, String)) async throws {
        let (username, status, words) = row
        let (harness, _, csrf) = try await Self.signedIn(backend)
        _ = try await harness.ownedInboxes.createInbox(username: "taken-one", ownerID: try await Self.bob(harness))
        let response = await harness.send(.POST, "/owner/inboxes", form: ["username": username, "csrf_token": csrf])
        #expect(response.status.code == status)
        #expect(response.text.contains(words) && response.text.contains("value=\"\(username)\""))
    }

    @Test(
        "a post without the browser's CSRF token changes nothing", arguments: StorageBackend.allCases, [nil, "forged"])
    func csrf(_ backend: StorageBackend, token: String?) async throws {
        let (harness, ownerID, _) = try await Self.signedIn(backend)
        let grant = try harness.insertGrant(ownerID: ownerID)
        var form = ["username": "ada-bot"]
        form["csrf_token"] = token
        #expect(await harness.send(.POST, "/owner/inboxes", form: form).status.code == 403)
        #expect(await harness.send(.POST, "/owner/apps/\(grant)/revoke", form: form).status.code == 403)
        #expect(try await harness.ownedInboxes.inboxes(ownerID: ownerID).isEmpty)
        let (inbox, _) = try await harness.ownedInboxes.createInbox(username: "kept-bot", ownerID: ownerID)
        var confirmed = form
        confirmed["confirm"] = inbox.address
        for action in ["unlink", "delete", "rotate-key"] {
            let refused = await harness.send(.POST, "/owner/inboxes/\(inbox.accountID)/\(action)", form: confirmed)
            #expect(refused.status.code == 403)
        }
        #expect(try await harness.ownedInboxes.inboxes(ownerID: ownerID) == [inbox])
        #expect(try harness.revokedAt(grant: grant) == nil)
    }

    @Test(
        "an owner holds at most 50 inboxes by default: one more, made or linked, is refused 403 with a message",
        arguments: StorageBackend.allCases)
    func inboxCap(_ backend: StorageBackend) async throws {
        let (harness, ownerID, csrf) = try await Self.signedIn(backend)
        for index in 0..<49 {
            _ = try await harness.ownedInboxes.createInbox(username: "bot-\(index)0", ownerID: ownerID)
        }
        let fiftieth = await harness.send(.POST, "/owner/inboxes", form: ["username": "bot-last", "csrf_token": csrf])
        #expect(fiftieth.status.code == 303)
        let over = await harness.send(.POST, "/owner/inboxes", form: ["username": "bot-over", "csrf_token": csrf])
        #expect(over.status.code == 403 && over.text.contains("You hold 50 inboxes, the most one owner may hold."))
        let key = AgentAPIKey.generate()
        #expect(try await harness.accounts.create(
            id: "6f1c1d34-55a4-4d7e-9d3c-6a0c3b8f0a12", username: "self-made", apiKeyDigest: AgentAPIKey.digest(key),
            now: harness.clock.now))
        let link = await harness.send(.POST, "/owner/inboxes/link", form: ["api_key": key, "csrf_token": csrf])
        #expect(link.status.code == 403 && link.text.contains("You hold 50 inboxes, the most one owner may hold."))
        #expect(try await harness.ownedInboxes.inboxes(ownerID: ownerID).count == 50)
    }

    @Test(
        "linking an agent's own inbox by its key: 303 back with a one-time notice; unknown and others' keys refused",
        arguments: StorageBackend.allCases)
    func link(_ backend: StorageBackend) async throws {
        let (harness, ownerID, csrf) = try await Self.signedIn(backend)
        let key = AgentAPIKey.generate()
        #expect(try await harness.accounts.create(
            id: "6f1c1d34-55a4-4d7e-9d3c-6a0c3b8f0a11", username: "self-made", apiKeyDigest: AgentAPIKey.digest(key),
            now: harness.clock.now))
        let (_, bobKey) = try await harness.ownedInboxes.createInbox(username: "bobs-bot", ownerID: try await Self.bob(harness))

        let unknown = await harness.send(
            .POST, "/owner/inboxes/link", form: ["api_key": "postern_ak_nope", "csrf_token": csrf])
        #expect(unknown.status.code == 422 && unknown.text.contains("No inbox has that API key"))
        #expect(!unknown.text.contains("postern_ak_nope"))
        let held = await harness.send(.POST, "/owner/inboxes/link", form: ["api_key": bobKey, "csrf_token": csrf])
        #expect(held.status.code == 409 && held.text.contains("Another owner holds that inbox."))
        #expect(!held.text.contains(bobKey))

        let linked = await harness.send(.POST, "/owner/inboxes/link", form: ["api_key": " \(key)\n", "csrf_token": csrf])
        #expect(linked.status.code == 303 && linked.headers["Location"] == "/owner")
        #expect(linked.headers.values("Set-Cookie").allSatisfy { !$0.contains(key) })
        let page = await harness.send(.GET, "/owner")
        #expect(page.text.contains("Linked self-made@agents.localhost"))
        #expect(page.text.contains("data-account-id=\"6f1c1d34-55a4-4d7e-9d3c-6a0c3b8f0a11\""))
        #expect(!(await harness.send(.GET, "/owner")).text.contains("Linked self-made"))
        #expect(try await harness.ownedInboxes.inboxes(ownerID: ownerID).map(\.username) == ["self-made"])
    }

    @Test("a forged notice cookie shows nothing", arguments: StorageBackend.allCases)
    func forgedNotice(_ backend: StorageBackend) async throws {
        let (harness, _, _) = try await Self.signedIn(backend)
        harness.cookies["postern_flash"] = "<script>alert(1)</script>"
        let page = await harness.send(.GET, "/owner")
        #expect(page.status.code == 200 && !page.text.contains("<script>") && !page.text.contains("id=\"notice\""))
        #expect(harness.cookies["postern_flash"] == nil)
    }

    @Test(
        "rotating a key shows the new one once and stops the old; another owner's or an unknown inbox is a 404",
        arguments: StorageBackend.allCases)
    func rotate(_ backend: StorageBackend) async throws {
        let (harness, ownerID, csrf) = try await Self.signedIn(backend)
        let (inbox, old) = try await harness.ownedInboxes.createInbox(username: "ada-bot", ownerID: ownerID)
        let (bobs, bobKey) = try await harness.ownedInboxes.createInbox(username: "bobs-bot", ownerID: try await Self.bob(harness))

        for id in [bobs.accountID, "00000000-0000-4000-8000-000000000000", "not-a-uuid"] {
            let refused = await harness.send(.POST, "/owner/inboxes/\(id)/rotate-key", form: ["csrf_token": csrf])
            #expect(refused.status.code == 404 && refused.text.contains("No such inbox."))
        }
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(bobKey))?.id == bobs.accountID)

        let posted = await harness.send(.POST, "/owner/inboxes/\(inbox.accountID)/rotate-key", form: ["csrf_token": csrf])
        #expect(posted.status.code == 303 && posted.headers["Location"] == "/owner")
        let rotated = await harness.send(.GET, "/owner")
        #expect(rotated.status.code == 200 && rotated.headers["Cache-Control"] == "no-store")
        let new = String(try #require(rotated.text.firstMatch(of: /id="api-key" class="key">(postern_ak_[^<]+)</)?.1))
        #expect(new != old && rotated.text.contains("the old key no longer works"))
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(old)) == nil)
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(new))?.id == inbox.accountID)
    }

    @Test(
        "connected apps are listed escaped with their default inbox; revoking one is at once and a stranger's is a 404",
        arguments: StorageBackend.allCases)
    func apps(_ backend: StorageBackend) async throws {
        let told = Mutex<[String]>([])
        let (harness, ownerID, csrf) = try await Self.signedIn(backend) { id in told.withLock { $0.append(id) } }
        let (inbox, _) = try await harness.ownedInboxes.createInbox(username: "ada-bot", ownerID: ownerID)
        let grant = try harness.insertGrant(
            ownerID: ownerID, clientID: "https://app.example/client.json", clientName: "<b>Evil</b> & Co",
            scope: "mail.read", agentID: inbox.accountID)
        let bobs = try harness.insertGrant(ownerID: try await Self.bob(harness))

        let page = await harness.send(.GET, "/owner")
        #expect(page.text.contains("&lt;b&gt;Evil&lt;/b&gt; &amp; Co") && !page.text.contains("<b>Evil"))
        #expect(page.text.contains("https://app.example/client.json") && page.text.contains("<td class=\"scopes\" data-label=\"Scopes\">mail.read</td>"))
        #expect(page.text.contains("<td class=\"default-inbox\" data-label=\"Default inbox\">ada-bot@agents.localhost</td>"))
        #expect(page.text.contains("http://127.0.0.1:8080/jmap") && !page.text.contains(bobs))

        for id in [bobs, "00000000-0000-4000-8000-000000000000"] {
            let refused = await harness.send(.POST, "/owner/apps/\(id)/revoke", form: ["csrf_token": csrf])
            #expect(refused.status.code == 404 && refused.text.contains("No such app."))
        }
        #expect(try harness.revokedAt(grant: bobs) == nil)

        let revoked = await harness.send(.POST, "/owner/apps/\(grant)/revoke", form: ["csrf_token": csrf])
        #expect(revoked.status.code == 303 && revoked.headers["Location"] == "/owner")
        #expect(try harness.revokedAt(grant: grant) == harness.clock.now && told.withLock { $0 } == [grant])
        let after = await harness.send(.GET, "/owner")
        #expect(after.text.contains("App disconnected") && !after.text.contains("data-grant-id"))
        let again = await harness.send(.POST, "/owner/apps/\(grant)/revoke", form: ["csrf_token": csrf])
        #expect(again.status.code == 404)
    }

    @Test(
        "connected apps show what each can reach: all your inboxes, or the one address it is bound to",
        arguments: StorageBackend.allCases)
    func reach(_ backend: StorageBackend) async throws {
        let (harness, ownerID, _) = try await Self.signedIn(backend)
        let (first, _) = try await harness.ownedInboxes.createInbox(username: "ada-bot", ownerID: ownerID)
        let (second, _) = try await harness.ownedInboxes.createInbox(username: "ada-two", ownerID: ownerID)
        let everything = try harness.insertGrant(ownerID: ownerID, clientName: "Every", agentID: first.accountID)
        let one = try harness.insertGrant(
            ownerID: ownerID, clientName: "One", agentID: second.accountID, boundAccountID: second.accountID)
        let resource = try harness.insertGrant(
            ownerID: ownerID, clientName: "Urn", resource: "urn:atomicmail:agent:" + first.accountID,
            agentID: first.accountID)
        let gone = try harness.insertGrant(
            ownerID: ownerID, clientName: "Gone", boundAccountID: "00000000-0000-4000-8000-000000000001")

        let page = await harness.send(.GET, "/owner")
        func row(_ id: String) -> String {
            guard let start = page.text.range(of: "data-grant-id=\"\(id)\"") else { return "" }
            return String(page.text[start.upperBound...]).components(separatedBy: "</tr>")[0]
        }
        #expect(row(everything).contains("<td class=\"reach\" data-label=\"Can reach\">all your inboxes</td>"))
        #expect(row(one).contains("<td class=\"reach\" data-label=\"Can reach\">ada-two@agents.localhost</td>"))
        #expect(row(resource).contains("<td class=\"reach\" data-label=\"Can reach\">ada-bot@agents.localhost</td>"))
        #expect(row(gone).contains("<td class=\"reach\" data-label=\"Can reach\">only an inbox you no longer hold</td>"))
        let grants = try await harness.grants().grants(ownerID: ownerID)
        #expect(grants.first { $0.id == everything }?.boundAccountID == nil)
        #expect(grants.first { $0.id == one }?.boundAccountID == second.accountID)
        #expect(grants.first { $0.id == resource }?.boundAccountID == first.accountID)
    }
}

extension OwnerInboxPagesTests {
    @Test(
        "unlinking: 303 with a notice; the inbox is nobody's, its key still logs in and can be linked again",
        arguments: StorageBackend.allCases)
    func unlink(_ backend: StorageBackend) async throws {
        let (harness, ownerID, csrf) = try await Self.signedIn(backend)
        let (inbox, key) = try await harness.ownedInboxes.createInbox(username: "ada-bot", ownerID: ownerID)
        let (bobs, _) = try await harness.ownedInboxes.createInbox(username: "bobs-bot", ownerID: try await Self.bob(harness))
        let stranger = await harness.send(.POST, "/owner/inboxes/\(bobs.accountID)/unlink", form: ["csrf_token": csrf])
        #expect(stranger.status.code == 404 && stranger.text.contains("No such inbox."))

        let unlinked = await harness.send(.POST, "/owner/inboxes/\(inbox.accountID)/unlink", form: ["csrf_token": csrf])
        #expect(unlinked.status.code == 303 && unlinked.headers["Location"] == "/owner")
        let page = await harness.send(.GET, "/owner")
        #expect(page.text.contains("Inbox unlinked") && !page.text.contains("data-account-id=\"\(inbox.accountID)\""))
        #expect(try await harness.ownedInboxes.inboxes(ownerID: ownerID).isEmpty)
        let owners = try await harness.test.database.read { connection in
            try connection.query("SELECT owner_id FROM owner_inboxes WHERE agent_id = ?", [.text(inbox.accountID)])
        }
        #expect(owners.isEmpty)
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(key))?.id == inbox.accountID)
        #expect(try await harness.ownedInboxes.link(apiKey: key, ownerID: ownerID).accountID == inbox.accountID)
    }

    @Test(
        "deleting asks first: without the typed address nothing goes; with it the account and its mail go",
        arguments: StorageBackend.allCases)
    func delete(_ backend: StorageBackend) async throws {
        let (harness, ownerID, csrf) = try await Self.signedIn(backend)
        let (inbox, key) = try await harness.ownedInboxes.createInbox(username: "ada-bot", ownerID: ownerID)
        let (kept, _) = try await harness.ownedInboxes.createInbox(username: "ada-kept", ownerID: ownerID)
        let (bobs, _) = try await harness.ownedInboxes.createInbox(username: "bobs-bot", ownerID: try await Self.bob(harness))
        let mail = MailStore(database: harness.test.database)
        for address in [inbox.address, kept.address] {
            _ = try await mail.deliver(
                NewMailMessage(
                    envelopeFrom: "a@example.com", from: [MailAddress(email: "a@example.com")],
                    to: [MailAddress(email: address)], subject: "Hello", messageID: "\(address)-1@example.com",
                    inReplyTo: [], references: [], sentAt: 1_700_000_000, textBody: "Hello", preview: "Hello",
                    attachments: [], raw: Array("Subject: Hello\r\n\r\nHello\r\n".utf8)),
                to: [.init(address: address, quota: 1_000_000)], folder: .inbox, now: harness.clock.now)
        }
        func count(_ table: String, _ address: String) async throws -> Int64 {
            try await harness.test.database.read { connection in
                try connection.query("SELECT COUNT(*) AS n FROM \(table) WHERE address = ?", [.text(address)])
                    .first?.int("n") ?? -1
            }
        }
        _ = try await harness.test.database.write { connection in
            try connection.run(
                "INSERT INTO mail_blobs (id, address, type, size, data, created_at) VALUES ('b1', ?, 'text/plain', 1, ?, 0)",
                [.text(inbox.address), .blob([0x41])])
        }
        #expect(try await count("mail_messages", inbox.address) == 1)

        let path = "/owner/inboxes/\(inbox.accountID)/delete"
        let asked = await harness.send(.POST, path, form: ["csrf_token": csrf])
        #expect(asked.status.code == 200 && asked.text.contains("id=\"confirm-delete-form\""))
        #expect(asked.text.contains("ada-bot@agents.localhost") && asked.text.contains("all of its mail"))
        let mistyped = await harness.send(.POST, path, form: ["csrf_token": csrf, "confirm": "ada-kept@agents.localhost"])
        #expect(mistyped.status.code == 422 && mistyped.text.contains("Nothing was deleted."))
        let stranger = await harness.send(
            .POST, "/owner/inboxes/\(bobs.accountID)/delete", form: ["csrf_token": csrf, "confirm": bobs.address])
        #expect(stranger.status.code == 404)
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(key))?.id == inbox.accountID)
        #expect(try await count("mail_messages", inbox.address) == 1)
        #expect(try await harness.ownedInboxes.inbox(accountID: bobs.accountID, ownerID: try #require(
            try await harness.service.owners.list().first { $0.email == "bob@example.com" }?.id)) != nil)

        let deleted = await harness.send(.POST, path, form: ["csrf_token": csrf, "confirm": " ADA-bot@agents.localhost "])
        #expect(deleted.status.code == 303 && deleted.headers["Location"] == "/owner")
        #expect((await harness.send(.GET, "/owner")).text.contains("Inbox deleted with all its mail"))
        #expect(try await harness.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(key)) == nil)
        #expect(try await !harness.accounts.isLive(username: "ada-bot"))
        for table in ["mail_messages", "mail_changes", "mail_state", "mail_blobs"] {
            #expect(try await count(table, inbox.address) == 0, "\(table)")
        }
        #expect(try await count("mail_messages", kept.address) == 1)
        #expect(try await harness.ownedInboxes.inboxes(ownerID: ownerID) == [kept])
        // Its name is free again, and a new inbox there starts empty.
        let (again, _) = try await harness.ownedInboxes.createInbox(username: "ada-bot", ownerID: ownerID)
        #expect(try await count("mail_messages", again.address) == 0)
    }
}
