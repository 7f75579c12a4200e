import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// A sandbox record follows its message (issue 82, migration 0067): what the SMTP sandbox keeps beside a captured copy
/// (`mailbox_sandbox_messages`) goes when the copy goes, whoever deletes it: Mailpit's deletes (the store's scoped
/// delete, by ids and by search) and retention's prune, which never heard of the sandbox.
@Suite("Sandbox records follow their message: Mailpit's deletes and retention leave no orphan")
struct SandboxRecordFollowsTests {
    static let sandbox = "sandbox-1a2b3c4d@sandbox.mail.localhost"
    static let owner = "pro-user-1"

    /// A Pro user, four captured copies (received at 1 to 4) each with its sandbox record; their ids in order.
    static func captured(_ db: MailDatabase, _ store: MailStore) async throws -> [String] {
        _ = try await db.database.write { connection in
            try connection.run(
                "INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(owner), .text("pro@example.com"), .text("x"), .integer(1), .integer(0)])
        }
        var ids: [String] = []
        for second in 1...4 {
            let id = try await store.deliver(
                MailStoreTests.message("captured \(second)", bytes: 10), to: [.init(address: sandbox, quota: 1 << 20)],
                folder: .inbox, now: Int64(second))[0]
            _ = try await db.database.write { connection in
                try connection.run(
                    """
                    INSERT INTO mailbox_sandbox_messages (message_id, owner_id, recipients, client_ip, created_at)
                        VALUES (?, ?, '[]', '127.0.0.1', ?)
                    """, [.text(id), .text(owner), .integer(Int64(second))])
            }
            ids.append(id)
        }
        return ids
    }

    static func records(_ db: MailDatabase) async throws -> [String] {
        try await db.database.read { connection in
            try connection.query("SELECT message_id FROM mailbox_sandbox_messages ORDER BY created_at", [])
                .compactMap { $0.text("message_id") }
        }
    }

    @Test("Mailpit's delete by ids and by search, then retention's prune: each takes the records of what it deletes",
        arguments: StorageBackend.allCases)
    func followsEveryDelete(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await Self.captured(db, store)
        #expect(try await Self.records(db) == ids)

        // DELETE /api/v1/messages {"IDs": [...]} and DELETE /api/v1/search?query=subject:"captured 2".
        #expect(try await store.delete(MailSelection(.address(Self.sandbox), .ids([ids[0]]))) == [ids[0]])
        #expect(try await store.delete(MailSelection(.address(Self.sandbox), .subject("captured 2"))) == [ids[1]])
        #expect(try await Self.records(db) == Array(ids[2...]), "Mailpit's deletes took their records")

        // Retention keeping one message an address: the oldest of the two left goes, with its record.
        let pruned = try await store.prune(MailRetention(maxMessages: 1), now: 10)
        #expect(pruned.map(\.id) == [ids[2]])
        #expect(try await Self.records(db) == [ids[3]], "the prune took its record; the kept message keeps its own")
    }
}
