import AgentAuth
import CustomDomains
import Directory
import PosternTestSupport
import Storage
import Testing

@Suite("Owned inboxes: owners create, link and rotate agent inboxes")
struct AgentOwnedInboxesTests {
    /// Two owners on a fresh database of the backend, and the stores over it.
    struct Fixture {
        let test: TestDatabase
        let inboxes: AgentOwnedInboxes
        let accounts: AgentAccountStore

        init(_ backend: StorageBackend) throws {
            test = try backend.makeDatabase()
            accounts = AgentAccountStore(database: test.database)
            inboxes = AgentOwnedInboxes(accounts: accounts, domain: "Agents.Localhost", clock: { 1_800_000_000 })
            for owner in ["owner-a", "owner-b"] {
                _ = try test.database.writeSync { connection in
                    try connection.run(
                        "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, ?, 'x', 0)",
                        [.text(owner), .text(owner + "@example.com")])
                }
            }
        }
    }

    @Test(
        "an inbox created by an owner is theirs, with its API key working as an agent's",
        arguments: StorageBackend.allCases)
    func create(_ backend: StorageBackend) async throws {
        let fixture = try Fixture(backend)
        let (inbox, key) = try await fixture.inboxes.createInbox(username: "ada-bot", ownerID: "owner-a")
        #expect(inbox.address == "ada-bot@agents.localhost" && inbox.linkedAt == 1_800_000_000)
        #expect(try await fixture.inboxes.inboxes(ownerID: "owner-a") == [inbox])
        #expect(try await fixture.inboxes.inbox(accountID: inbox.accountID, ownerID: "owner-a") == inbox)
        #expect(try await fixture.inboxes.inbox(accountID: inbox.accountID, ownerID: "owner-b") == nil)
        #expect(try await fixture.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(key))?.id == inbox.accountID)
        await #expect(throws: OwnedInboxError.usernameTaken) {
            try await fixture.inboxes.createInbox(username: "ada-bot", ownerID: "owner-b")
        }
        await #expect(throws: OwnedInboxError.invalidUsername) { try await fixture.inboxes.createInbox(username: "A", ownerID: "owner-a") }
        await #expect(throws: OwnedInboxError.reservedUsername) {
            try await fixture.inboxes.createInbox(username: "postmaster", ownerID: "owner-a")
        }
    }

    @Test(
        "linking by API key: idempotent for the holder, refused for another owner and for unknown keys",
        arguments: StorageBackend.allCases)
    func link(_ backend: StorageBackend) async throws {
        let fixture = try Fixture(backend)
        let key = AgentAPIKey.generate()
        #expect(try await fixture.accounts.create(id: "agent-1", username: "lone-bot", apiKeyDigest: AgentAPIKey.digest(key), now: 5))
        let linked = try await fixture.inboxes.link(apiKey: key, ownerID: "owner-a")
        #expect(linked.accountID == "agent-1" && linked.activatedAt == 5)
        #expect(try await fixture.inboxes.link(apiKey: key, ownerID: "owner-a") == linked)
        await #expect(throws: OwnedInboxError.heldByAnother) { try await fixture.inboxes.link(apiKey: key, ownerID: "owner-b") }
        await #expect(throws: OwnedInboxError.unknownKey) {
            try await fixture.inboxes.link(apiKey: AgentAPIKey.generate(), ownerID: "owner-b")
        }
        await #expect(throws: OwnedInboxError.unknownKey) { try await fixture.inboxes.link(apiKey: "nonsense", ownerID: "owner-b") }
    }

    @Test("rotating a key kills the old one at once; only the holder may rotate", arguments: StorageBackend.allCases)
    func rotate(_ backend: StorageBackend) async throws {
        let fixture = try Fixture(backend)
        let (inbox, old) = try await fixture.inboxes.createInbox(username: "ada-bot", ownerID: "owner-a")
        #expect(try await fixture.inboxes.rotateKey(accountID: inbox.accountID, ownerID: "owner-b") == nil)
        let new = try #require(try await fixture.inboxes.rotateKey(accountID: inbox.accountID, ownerID: "owner-a"))
        #expect(new != old)
        #expect(try await fixture.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(old)) == nil)
        #expect(try await fixture.accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(new))?.id == inbox.accountID)
    }

    @Test("a revoked agent's inbox is no longer anyone's", arguments: StorageBackend.allCases)
    func revoked(_ backend: StorageBackend) async throws {
        let fixture = try Fixture(backend)
        let (inbox, _) = try await fixture.inboxes.createInbox(username: "ada-bot", ownerID: "owner-a")
        #expect(try await fixture.accounts.revoke(username: "ada-bot", now: 9))
        #expect(try await fixture.inboxes.inboxes(ownerID: "owner-a").isEmpty)
        #expect(try await fixture.inboxes.inbox(accountID: inbox.accountID, ownerID: "owner-a") == nil)
        #expect(try await fixture.inboxes.rotateKey(accountID: inbox.accountID, ownerID: "owner-a") == nil)
    }
}

@Suite("Owned inboxes on a custom domain")
struct AgentCustomDomainInboxTests {
    @Test(
        "an inbox on an owner's domain has that address, takes mail there, and its key logs in as any agent's",
        arguments: StorageBackend.allCases)
    func customDomain(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let accounts = AgentAccountStore(database: test.database)
        let inboxes = AgentOwnedInboxes(accounts: accounts, domain: "agents.localhost", clock: { 7 })
        _ = try test.database.writeSync { connection in
            try connection.run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o', 'o@x.example', 'x', 0)")
        }
        let (inbox, key) = try await inboxes.createInbox(username: "support", domain: "Example.COM", ownerID: "o")
        #expect(inbox.address == "support@example.com" && inbox.username == "support@example.com")
        // A role name reserved on the agent domain is the owner's to take on their own; the agent domain still refuses it.
        await #expect(throws: OwnedInboxError.reservedUsername) { try await inboxes.createInbox(username: "support", ownerID: "o") }
        let (plain, _) = try await inboxes.createInbox(username: "helper", ownerID: "o")
        #expect(plain.address == "helper@agents.localhost")
        // A short name is the owner's to take on their own domain; the shared agent domain keeps its 5-character floor.
        #expect(try await inboxes.createInbox(username: "bot", domain: "example.com", ownerID: "o").inbox.address
            == "bot@example.com")
        #expect(try await inboxes.createInbox(username: "a", domain: "example.com", ownerID: "o").inbox.address
            == "a@example.com")
        await #expect(throws: OwnedInboxError.invalidUsername) {
            try await inboxes.createInbox(username: "bot", ownerID: "o")
        }
        await #expect(throws: OwnedInboxError.invalidUsername) {
            try await inboxes.createInbox(username: "-x", domain: "example.com", ownerID: "o")
        }
        await #expect(throws: OwnedInboxError.usernameTaken) {
            try await inboxes.createInbox(username: "support", domain: "example.com", ownerID: "o")
        }

        let directory = AgentInboxDirectory(
            accounts: accounts, claims: CustomDomains(database: accounts.database), domain: "agents.localhost",
            quota: 1_000)
        // Served only while its owner holds the domain verified (custom_domain_claims).
        #expect(try await directory.resolve("support@example.com") == .foreign)
        _ = try test.database.writeSync { connection in
            try connection.run(
                """
                INSERT INTO custom_domain_claims (id, owner_id, domain, verify_token, verified_at, created_at)
                VALUES ('d', 'o', 'example.com', 'postern-verify-1', 1, 0)
                """)
        }
        #expect(try await directory.resolve("Support@Example.com") == .local(Recipient(address: "support@example.com", quota: 1_000)))
        // An address no inbox has on a domain an owner holds verified is unknown (550 5.1.1), not foreign (5.7.1).
        #expect(try await directory.resolve("other@example.com") == .unknown)
        #expect(try await directory.resolve("other@elsewhere.example") == .foreign)
        let principal = try await AgentAPIKeyAuthenticator(
            accounts: accounts, inboxDomain: "agents.localhost", directory: directory
        ).principal(for: Credentials(bearerToken: key))
        #expect(principal?.mailbox.address == "support@example.com" && principal?.accountID == inbox.accountID)
    }
}

@Suite("Owned inboxes: a key rotation ends the old key's sessions")
struct AgentKeyRotationSessionTests {
    @Test(
        "a session opened before the owner rotated the key buys no capability; one opened after does",
        arguments: StorageBackend.allCases)
    func rotationEndsSessions(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (oldKey, oldSession) = try await harness.signup("rotating-bot")
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: oldSession).status.code == 200)
        _ = try harness.database.writeSync { connection in
            try connection.run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o', 'o@x.example', 'x', 0)")
        }
        let clock = harness.clock
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: harness.database), domain: "agents.localhost", clock: { clock.now })
        _ = try await inboxes.link(apiKey: oldKey, ownerID: "o")
        harness.clock.advance(5)
        let account = try #require(try await inboxes.inboxes(ownerID: "o").first)
        let newKey = try #require(try await inboxes.rotateKey(accountID: account.accountID, ownerID: "o"))
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: oldSession).status.code == 401)
        let login = try await harness.session("apiKey", newKey)
        #expect(login.status.code == 200)
        let newSession = try #require(login.bearer)
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: newSession).status.code == 200)
    }
}
