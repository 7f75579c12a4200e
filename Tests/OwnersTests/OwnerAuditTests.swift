import AgentAuth
import Audit
import DNS
import Directory
import HTTP1
import Owners
import PosternTestSupport
import Storage
import Testing

/// An audit log whose every write fails, as a database refusing the table would.
struct FailingAuditLog: AuditLog {
    struct Refused: Error {}
    func record(_ event: AuditEvent) async throws { throw Refused() }
    func events(since: Int64?, ownerID: String?, limit: Int) async throws -> [AuditEvent] { throw Refused() }
    func purge(olderThan cutoff: Int64) async throws -> Int { throw Refused() }
}

/// The owners' audit trail, through the routes: sign-ins and refusals, every inbox, app and domain change of the
/// owner pages, each recorded once; an owner's "Recent activity" shows their own events only.
@Suite("Owners: the audit trail")
struct OwnerAuditTests {
    /// Every event in the table, oldest first.
    static func events(_ harness: OwnersHarness) async throws -> [AuditEvent] {
        try await SQLAuditLog(database: harness.test.database).events(since: nil, ownerID: nil, limit: 1000).reversed()
    }

    /// The new events since `count` were seen.
    static func actions(_ harness: OwnersHarness, after count: Int) async throws -> [AuditAction] {
        try await events(harness).dropFirst(count).map(\.action)
    }

    @Test("each owner-page action records exactly its event, on its owner's trail", arguments: StorageBackend.allCases)
    func everyAction(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend, dns: server) {
            $0.mxHost = "mx.postern.test"
            $0.servedDomains = ["agents.localhost"]
        }
        harness.routeInboxPages()
        OwnerDomainPagesTests.pages(harness).register(into: &harness.router)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")

        _ = try await harness.signIn("ada@example.com", "wrong horse")
        #expect(try await Self.actions(harness, after: 0) == [.ownerSignInFailed])
        _ = try await harness.signIn("ada@example.com", "correct horse")
        #expect(try await Self.actions(harness, after: 1) == [.ownerSignIn])
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))

        var seen = 2
        // Every owner-page action records the client's address, as the sign-in does.
        let client = try #require(try await Self.events(harness).last?.clientAddress)
        #expect(!client.isEmpty)
        func expectNext(_ action: AuditAction, target: String, sourceLocation: SourceLocation = #_sourceLocation)
            async throws
        {
            let new = Array(try await Self.events(harness).dropFirst(seen))
            #expect(new.map(\.action) == [action], sourceLocation: sourceLocation)
            #expect(new.first?.target == target, sourceLocation: sourceLocation)
            #expect(new.first?.ownerID == ada.id && new.first?.actorKind == .owner, sourceLocation: sourceLocation)
            #expect(new.first?.clientAddress == client, sourceLocation: sourceLocation)
            seen += new.count
        }

        #expect(
            await harness.send(.POST, "/owner/inboxes", form: ["username": "ada-bot", "csrf_token": csrf])
                .status.code == 303)
        try await expectNext(.inboxCreated, target: "ada-bot@agents.localhost")
        let inbox = try #require(try await harness.ownedInboxes.inboxes(ownerID: ada.id).first)
        _ = await harness.send(.POST, "/owner/inboxes/\(inbox.accountID)/rotate-key", form: ["csrf_token": csrf])
        try await expectNext(.inboxKeyRotated, target: "ada-bot@agents.localhost")
        _ = await harness.send(.POST, "/owner/inboxes/\(inbox.accountID)/unlink", form: ["csrf_token": csrf])
        try await expectNext(.inboxUnlinked, target: "ada-bot@agents.localhost")

        let key = AgentAPIKey.generate()
        #expect(
            try await harness.accounts.create(
                id: "6f1c1d34-55a4-4d7e-9d3c-6a0c3b8f0a12", username: "self-made",
                apiKeyDigest: AgentAPIKey.digest(key),
                now: harness.clock.now))
        _ = await harness.send(.POST, "/owner/inboxes/link", form: ["api_key": key, "csrf_token": csrf])
        try await expectNext(.inboxLinked, target: "self-made@agents.localhost")
        let deleted = await harness.send(
            .POST, "/owner/inboxes/6f1c1d34-55a4-4d7e-9d3c-6a0c3b8f0a12/delete",
            form: ["confirm": "self-made@agents.localhost", "csrf_token": csrf])
        #expect(deleted.status.code == 303)
        try await expectNext(.inboxDeleted, target: "self-made@agents.localhost")

        let grant = try harness.insertGrant(ownerID: ada.id)
        _ = await harness.send(.POST, "/owner/apps/\(grant)/revoke", form: ["csrf_token": csrf])
        try await expectNext(.appRevoked, target: grant)

        _ = await harness.send(.POST, "/owner/domains", form: ["domain": "Example.com", "csrf_token": csrf])
        try await expectNext(.domainAdded, target: "example.com")
        let domain = try #require(try await harness.service.domains.domains(ownerID: ada.id).first)
        let pending = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        #expect(pending.text.contains("pending"))
        #expect(try await Self.events(harness).count == seen)  // a check that proves nothing records nothing
        zone.set("example.com", 16, .txt([domain.verifyToken]))
        _ = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        try await expectNext(.domainVerified, target: "example.com")
        _ = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        #expect(try await Self.events(harness).count == seen)  // verified already: nothing new
        _ = await harness.send(
            .POST, "/owner/domains/\(domain.id)/inboxes", form: ["local_part": "support", "csrf_token": csrf])
        try await expectNext(.inboxCreated, target: "support@example.com")
        let support = try #require(
            try await harness.ownedInboxes.inboxes(ownerID: ada.id).first { $0.address == "support@example.com" })
        _ = await harness.send(
            .POST, "/owner/inboxes/\(support.accountID)/delete",
            form: ["confirm": "support@example.com", "csrf_token": csrf])
        try await expectNext(.inboxDeleted, target: "support@example.com")
        _ = await harness.send(.POST, "/owner/domains/\(domain.id)/delete", form: ["csrf_token": csrf])
        try await expectNext(.domainRemoved, target: "example.com")

        // Refused actions record nothing.
        _ = await harness.send(.POST, "/owner/inboxes", form: ["username": "x", "csrf_token": csrf])
        _ = await harness.send(.POST, "/owner/apps/\(grant)/revoke", form: ["csrf_token": "forged"])
        #expect(try await Self.events(harness).count == seen)
    }

    @Test(
        "a refused sign-in records owner.signin_failed with the email typed and never the password",
        arguments: StorageBackend.allCases)
    func failedSignIn(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let refused = try await harness.signIn("ada@example.com", "Tr0ub4dor&3-secret")
        #expect(refused.status.code == 401)
        let events = try await Self.events(harness)
        let event = try #require(events.first)
        #expect(events.count == 1 && event.action == .ownerSignInFailed && event.target == "ada@example.com")
        #expect(event.ownerID == nil && event.details == #"{"reason":"refused"}"#)
        let rows = try await harness.test.database.read { try $0.query("SELECT * FROM audit_events") }
        let everything = rows.flatMap(\.values).map { "\($0)" }.joined(separator: " ")
        #expect(!everything.contains("Tr0ub4dor"))
        #expect(everything.contains("owner.signin_failed"))
    }

    @Test(
        "an email with a control character is refused before it is recorded: the trail holds it escaped",
        arguments: StorageBackend.allCases)
    func controlCharacterEmail(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let forged =
            "x@example.com\n2026-11-26T07:00:00Z  owner.signin  owner 1  ada@example.com\u{1B}[2J\u{2028}\u{9B}"
        let refused = try await harness.signIn(forged, "correct horse")
        #expect(refused.status.code == 401)
        #expect(!refused.text.contains("\u{1B}") && !refused.text.contains("owner.signin "))
        let events = try await Self.events(harness)
        let event = try #require(events.first)
        #expect(events.count == 1 && event.action == .ownerSignInFailed)
        #expect(!AuditText.containsControl(event.target) && !AuditText.containsControl(event.actorID))
        #expect(event.target == AuditText.escaped(forged))
        #expect(event.details == #"{"reason":"invalid_email"}"#)
        // Nor may such an address be an owner's.
        for control in ["\u{85}", "\u{2028}", "\u{9B}", "\u{202E}"] {
            #expect(OwnerCredentials.normalizedEmail("ada\(control)@example.com") == nil)
        }
    }

    @Test(
        "Recent activity shows a control character in a target escaped, never raw", arguments: StorageBackend.allCases)
    func recentActivityEscapesControls(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        harness.routeInboxPages()
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        try await harness.auditLog.record(
            .owner(ada.id, .domainAdded, target: "evil\u{1B}]8;;x\u{07}\u{2028}.example", time: harness.clock.now))
        try await harness.signInFresh("ada@example.com", "correct horse")
        let page = await harness.send(.GET, "/owner")
        #expect(page.status.code == 200)
        #expect(page.text.contains("evil\\u{1B}]8;;x\\u{07}\\u{2028}.example"))
        #expect(!page.text.contains("\u{1B}") && !page.text.contains("\u{2028}") && !page.text.contains("\u{07}"))
    }

    @Test(
        "an owner's Recent activity shows their own events, escaped, and never another owner's",
        arguments: StorageBackend.allCases)
    func recentActivityIsOwn(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        harness.routeInboxPages()
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        try await harness.signInFresh("bob@example.com", "correct horse")
        let bobCSRF = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/inboxes", form: ["username": "bobs-secret", "csrf_token": bobCSRF])
        try await harness.auditLog.record(
            .owner(bob.id, .domainAdded, target: "bob-only.example", time: harness.clock.now))
        try await harness.auditLog.record(
            .owner(ada.id, .domainAdded, target: "<script>x</script>.example", time: harness.clock.now))

        try await harness.signInFresh("ada@example.com", "correct horse")
        let page = await harness.send(.GET, "/owner")
        #expect(page.status.code == 200 && page.text.contains("id=\"activity\""))
        #expect(page.text.contains("<td class=\"action\" data-label=\"What\">Signed in</td>"))
        #expect(page.text.contains("&lt;script&gt;x&lt;/script&gt;.example") && !page.text.contains("<script>x"))
        #expect(!page.text.contains("bobs-secret") && !page.text.contains("bob-only.example"))
        #expect(!page.text.contains("bob@example.com"))
        let bobs = try await harness.auditLog.events(since: nil, ownerID: bob.id, limit: 100)
        #expect(bobs.contains { $0.target == "bobs-secret@agents.localhost" })
        #expect(bobs.allSatisfy { $0.ownerID == bob.id })
    }

    @Test(
        "a failing audit log fails no action: sign-in, create, rotate and the page all work",
        arguments: StorageBackend.allCases)
    func failingLog(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend, auditLog: FailingAuditLog())
        harness.routeInboxPages()
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        #expect(try await harness.signIn("ada@example.com", "wrong horse").status.code == 401)
        let signedIn = try await harness.signIn("ada@example.com", "correct horse")
        #expect(signedIn.status.code == 303 && signedIn.headers["Location"] == "/owner")
        let page = await harness.send(.GET, "/owner")
        #expect(page.status.code == 200 && page.text.contains("id=\"no-activity\""))
        let csrf = try #require(OwnersHarness.csrf(in: page))
        let created = await harness.send(.POST, "/owner/inboxes", form: ["username": "ada-bot", "csrf_token": csrf])
        #expect(created.status.code == 303)
        let inbox = try #require(try await harness.ownedInboxes.inboxes(ownerID: ada.id).first)
        let rotated = await harness.send(
            .POST, "/owner/inboxes/\(inbox.accountID)/rotate-key", form: ["csrf_token": csrf])
        #expect(rotated.status.code == 303)
    }
}

/// The `audit_events` table itself, on the backend under test.
@Suite("Audit: the SQL log")
struct SQLAuditLogTests {
    @Test(
        "events filter by owner and time, newest first; purge removes only what is older than the cutoff",
        arguments: StorageBackend.allCases)
    func filterAndPurge(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let log = SQLAuditLog(database: test.database)
        try await log.record(.owner("owner-a", .ownerSignIn, target: "a@example.com", client: "192.0.2.1", time: 100))
        try await log.record(.owner("owner-b", .ownerSignIn, target: "b@example.com", time: 200))
        try await log.record(
            AuditEvent(
                time: 300, actorKind: .operator, actorID: "operator", ownerID: nil, action: .keysRotated,
                target: "signing keys", details: AuditDetails.json(["active": "k1 \"k2\""])))
        try await log.record(.owner("owner-a", .inboxCreated, target: "x@agents.localhost", time: 400))

        let all = try await log.events(since: nil, ownerID: nil, limit: 10)
        #expect(all.map(\.time) == [400, 300, 200, 100])
        #expect(all[1].details == #"{"active":"k1 \"k2\""}"# && all[1].ownerID == nil)
        #expect(all[3].clientAddress == "192.0.2.1" && all[3].actorKind == .owner)
        #expect(try await log.events(since: nil, ownerID: "owner-a", limit: 10).map(\.time) == [400, 100])
        #expect(try await log.events(since: 200, ownerID: nil, limit: 10).map(\.time) == [400, 300, 200])
        #expect(try await log.events(since: nil, ownerID: nil, limit: 2).map(\.time) == [400, 300])

        #expect(try await log.purge(olderThan: 300) == 2)
        #expect(try await log.events(since: nil, ownerID: nil, limit: 10).map(\.time) == [400, 300])
    }

    @Test("every action has a stable dotted name", arguments: AuditAction.allCases)
    func names(action: AuditAction) {
        #expect(action.rawValue.wholeMatch(of: /[a-z_]+\.[a-z_]+/) != nil)
        #expect(!action.words.isEmpty)
    }
}
