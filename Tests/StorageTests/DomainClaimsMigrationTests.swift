import PosternTestSupport
import Testing

@testable import Storage

/// Migration 0024 lets several pending claims name one domain in `mailbox_pro_domains` and `owner_domains`, at most
/// one of them verified and one per holder: on a database migrated to 0023 with claims in it, the rows are kept as
/// they were, and the cascades of their holders still apply.
@Suite("Migration 0024: pending domain claims no longer unique", .serialized)
struct DomainClaimsMigrationTests {
    @Test("0024 keeps existing claims; pending claims may share a domain, verified ones and one holder's may not",
        arguments: StorageBackend.allCases)
    func claims(backend: StorageBackend) throws {
        try backend.withDatabase(migratedTo: 23) { database, all in
            #expect(all.contains { $0.version == 24 && $0.name == "0024_domain_claims.sql" })

            func run(_ sql: String, _ values: [SQLValue] = []) throws {
                _ = try database.writeSync { try $0.run(sql, values) }
            }
            try run("INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at) VALUES ('u1', 'u1@x', '', 5, 0)")
            try run("INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at) VALUES ('u2', 'u2@x', '', 5, 0)")
            try run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'o1@x', '', 0)")
            try run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o2', 'o2@x', '', 0)")
            for table in ["mailbox_pro_domains", "owner_domains"] {
                let holder = table == "owner_domains" ? "o1" : "u1"
                try run(
                    """
                    INSERT INTO \(table) (id, owner_id, domain, verify_token, verified_at, mx_configured, created_at)
                    VALUES ('\(table)-a', '\(holder)', 'a.example', 'tok-a', 50, 1, 10),
                        ('\(table)-b', '\(holder)', 'b.example', 'tok-b', NULL, 0, 20)
                    """)
                // Before: one row per domain, pending or not.
                #expect(throws: (any Error).self) {
                    try run(
                        "INSERT INTO \(table) (id, owner_id, domain, verify_token, created_at) VALUES ('x', ?, 'b.example', 't', 1)",
                        [.text(table == "owner_domains" ? "o2" : "u2")])
                }
            }

            // Up to 0024 only: 0033 moves both tables into custom_domain_claims (CustomDomainClaimsMigrationTests).
            #expect(try Migrator(migrations: all.filter { $0.version <= 24 }).migrate(database).contains("0024_domain_claims.sql"))
            for table in ["mailbox_pro_domains", "owner_domains"] {
                let (holder, other) = table == "owner_domains" ? ("o1", "o2") : ("u1", "u2")
                let rows = try database.readSync {
                    try $0.query(
                        """
                        SELECT id, owner_id, domain, verify_token, verified_at, mx_configured, created_at FROM \(table)
                        ORDER BY id
                        """, [])
                }
                #expect(rows.map { $0.text("domain") } == ["a.example", "b.example"])
                #expect(rows.map { $0.text("owner_id") } == [holder, holder])
                #expect(rows.map { $0.text("verify_token") } == ["tok-a", "tok-b"])
                #expect(rows.map { $0.int("verified_at") } == [50, nil])
                #expect(rows.map { $0.int("mx_configured") } == [1, 0])
                #expect(rows.map { $0.int("created_at") } == [10, 20])
                // Another holder's pending claim on either domain is taken now.
                try run(
                    "INSERT INTO \(table) (id, owner_id, domain, verify_token, created_at) VALUES (?, ?, 'b.example', 't', 1)",
                    [.text(table + "-b2"), .text(other)])
                try run(
                    "INSERT INTO \(table) (id, owner_id, domain, verify_token, created_at) VALUES (?, ?, 'a.example', 't', 1)",
                    [.text(table + "-a2"), .text(other)])
                // A second verified claim on a domain, or a second claim of one holder, is refused.
                #expect(throws: (any Error).self) {
                    try run("UPDATE \(table) SET verified_at = 60 WHERE id = ?", [.text(table + "-a2")])
                }
                #expect(throws: (any Error).self) {
                    try run(
                        "INSERT INTO \(table) (id, owner_id, domain, verify_token, created_at) VALUES ('dup', ?, 'b.example', 't', 1)",
                        [.text(holder)])
                }
                try run("UPDATE \(table) SET verified_at = 60 WHERE id = ?", [.text(table + "-b2")])
            }
            // The holders' cascades came through the rebuild.
            try run("DELETE FROM mailbox_pro_users WHERE id = 'u1'")
            try run("DELETE FROM owners WHERE id = 'o1'")
            for table in ["mailbox_pro_domains", "owner_domains"] {
                let left = try database.readSync { try $0.query("SELECT id FROM \(table) ORDER BY id", []) }
                #expect(left.map { $0.text("id") } == [table + "-a2", table + "-b2"])
            }
        }
    }
}
