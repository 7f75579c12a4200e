import PosternTestSupport
import Testing

@testable import Storage

/// Migration 0040 (issue 49): `owners.approved_at`, and `outbound_submissions.holder` for the per-owner limit. Owners
/// made before it are approved as of their creation (every owner answered for their inboxes under the earlier rule, and
/// no row says which the operator made); submissions recorded before it count against no owner.
@Suite("Migration 0040: owners approved to send outside", .serialized)
struct OwnerApprovalMigrationTests {
    @Test("0040 approves the owners already there as of their creation and names no holder for earlier submissions",
        arguments: StorageBackend.allCases)
    func existingOwnersApproved(backend: StorageBackend) throws {
        try backend.withDatabase(migratedTo: 38) { database, all in
            #expect(all.contains { $0.version == 40 && $0.name == "0040_owner_approval.sql" })
            _ = try database.writeSync { connection in
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'o1@x', '', 10), "
                        + "('o2', 'o2@x', '', 20)")
                try connection.run(
                    """
                    INSERT INTO outbound_submissions (id, account_id, sender, email_id, thread_id, send_at, created_seq,
                        updated_seq) VALUES ('S1', 'a1', 'box@agents.test', 'e1', 't1', 5, 1, 1)
                    """)
            }
            #expect(try Migrator(migrations: all).migrate(database).contains("0040_owner_approval.sql"))
            let owners = try database.readSync {
                try $0.query("SELECT id, approved_at FROM owners ORDER BY id", [])
            }
            #expect(owners.map { $0.int("approved_at") } == [10, 20])
            let submissions = try database.readSync { try $0.query("SELECT holder FROM outbound_submissions", []) }
            #expect(submissions.map { $0.text("holder") } == [nil])
            _ = try database.writeSync { connection in
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o3', 'o3@x', '', 30)")
            }
            let new = try database.readSync { try $0.query("SELECT approved_at FROM owners WHERE id = 'o3'", []) }
            #expect(new.first?.int("approved_at") == nil, "a row made after it (sign-up) waits")
        }
    }
}
