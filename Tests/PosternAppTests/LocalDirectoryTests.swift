import Directory
import Logging
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp

/// The directory the app composes from the surfaces' own: each reads only its own table.
@Suite("Local directory: the surfaces' accounts composed")
struct LocalDirectoryTests {
    @Test("local addresses: mailbox accounts on mailbox domains, live agents on the agent domain; others are not ours", arguments: StorageBackend.allCases)
    func resolution(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase(logger: Logger(label: "local-directory-tests"))
        let run = { (sql: String, bindings: [SQLValue]) in
            _ = try await test.database.write { try $0.run(sql, bindings) }
        }
        try await run(
            "INSERT INTO mailbox_accounts (id, address, password_hash, quota, created_at) VALUES ('a1', 'box@mail.localhost', '', 777, 1)", [])
        try await run(
            "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES ('g1', 'agent-one', ?, 1)",
            [.blob(Array(repeating: 0, count: 32))])
        try await run(
            "INSERT INTO agent_accounts (id, username, api_key_digest, created_at, revoked_at) VALUES ('g2', 'gone-agent', ?, 1, 2)",
            [.blob(Array(repeating: 1, count: 32))])
        var configuration = PosternConfiguration()
        configuration.mailbox.domains = ["mail.localhost"]
        configuration.mailbox.proDomains = ["Pro.Localhost"]
        configuration.agent.inboxDomain = "agents.localhost"
        configuration.agent.inboxQuota = 5000
        let local = Surfaces.localDirectory(
            configuration, database: test.database,
            claims: Surfaces.customDomains(database: test.database, signingKeys: nil))
        // A free account: its id, and no holder (no Pro user's webhook hears of its mail).
        #expect(
            try await local.resolve("Box@Mail.Localhost")
                == .local(.init(address: "box@mail.localhost", quota: 777, accountID: "a1", holderID: nil)))
        #expect(try await local.resolve("agent-one@agents.localhost") == .local(.init(address: "agent-one@agents.localhost", quota: 5000)))
        #expect(try await local.resolve("gone-agent@agents.localhost") == .unknown)
        #expect(try await local.resolve("nobody@pro.localhost") == .unknown)
        #expect(try await local.resolve("box@agents.localhost") == .unknown)
        #expect(try await local.resolve("box@example.com") == .foreign)
        #expect(try await local.resolve("not-an-address") == .foreign)
        #expect(local.serves(domain: "PRO.localhost"))
        #expect(!local.serves(domain: "example.com"))
    }
}
