import AgentAuth
import Logging
import MailboxAccounts
import Owners
import PosternTestSupport
import RemoteHashAuth
import Storage
import Testing

@testable import PosternApp

/// The start-up check for lost keys counts the accounts each surface holds through the target that owns its table.
@Suite("Key ring check: the accounts of every surface, counted by their owners", .serialized)
struct KeyRingCheckTests {
    @Test("agents, Mail.td accounts and Pro users, remote-hash users and owners each count; an empty database is 0",
        arguments: StorageBackend.allCases)
    func accountRows(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase(logger: Logger(label: "key-ring-check-tests"))
        #expect(try test.database.readSync(KeyRingCheck.accountRows) == 0)
        _ = try await test.database.write { connection in
            try connection.transaction {
                try connection.run(
                    "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES ('a1', 'bot', ?, 0)",
                    [.blob([UInt8](repeating: 7, count: 32))])
                try connection.run(
                    """
                    INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at)
                        VALUES ('p1', 'pro@example.com', 'x', 10, 0)
                    """)
                try connection.run(
                    """
                    INSERT INTO mailbox_accounts (id, address, password_hash, owner_id, quota, created_at)
                        VALUES ('m1', 'box@mail.localhost', 'x', 'p1', 1000, 0)
                    """)
                try connection.run(
                    "INSERT INTO remote_users (email, password_hash_url) VALUES ('r@example.com', 'https://x/h')")
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'o@example.com', 'x', 0)")
            }
        }
        let counts = try test.database.readSync { connection in
            [
                try AgentAccountStore.accountRows(connection), try MailboxStore.accountRows(connection),
                try RemoteUserStore.accountRows(connection), try OwnerStore.accountRows(connection),
            ]
        }
        #expect(counts == [1, 2, 1, 1])
        #expect(try test.database.readSync(KeyRingCheck.accountRows) == 5)
    }
}
