import PosternTestSupport
import Testing

@testable import Storage

/// Migration 0033 moves owners' domains (`owner_domains`) and Mail.td Pro users' domains (`mailbox_pro_domains`)
/// into one table of claims, `custom_domain_claims`: on a database at 0032 with rows in both, every row comes through
/// with its id, holder, token, state and times; the old tables are gone; one domain has one verified claim whichever
/// surface holds it; and the holders' cascades still apply (the webhook trigger's read of the claims is
/// MailboxWebhookTests' catch-all test).
@Suite("Migration 0033: one table of custom-domain claims", .serialized)
struct CustomDomainClaimsMigrationTests {
    @Test("0033 copies both tables with their ids, drops them, and allows one verified claim a domain",
        arguments: StorageBackend.allCases)
    func claims(backend: StorageBackend) throws {
        try backend.withDatabase(migratedTo: 32) { database, all in
            #expect(all.contains { $0.version == 33 && $0.name == "0033_custom_domain_claims.sql" })

            func run(_ sql: String, _ values: [SQLValue] = []) throws {
                _ = try database.writeSync { try $0.run(sql, values) }
            }
            func rows(_ sql: String) throws -> [SQLRow] {
                try database.readSync { try $0.query(sql, []) }
            }
            try run("INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at) VALUES ('u1', 'u1@x', '', 5, 0)")
            try run("INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at) VALUES ('u2', 'u2@x', '', 5, 0)")
            try run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'o1@x', '', 0)")
            try run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o2', 'o2@x', '', 0)")
            try run(
                """
                INSERT INTO owner_domains (id, owner_id, domain, verify_token, verified_at, mx_configured, created_at)
                VALUES ('od-a', 'o1', 'a.example', 'tok-oa', 50, 1, 10),
                    ('od-b', 'o1', 'b.example', 'tok-ob', NULL, 0, 20),
                    ('od-both', 'o2', 'both.example', 'tok-o-both', 70, 0, 30)
                """)
            try run(
                """
                INSERT INTO mailbox_pro_domains (id, owner_id, domain, verify_token, verified_at, mx_configured, created_at)
                VALUES ('pd-c', 'u1', 'c.example', 'tok-pc', 55, 0, 11),
                    ('pd-b', 'u2', 'b.example', 'tok-pb', NULL, 1, 21),
                    ('pd-both', 'u1', 'both.example', 'tok-p-both', 60, 1, 31)
                """)

            #expect(try Migrator(migrations: all).migrate(database).contains("0033_custom_domain_claims.sql"))
            let claims = try rows(
                """
                SELECT id, owner_id, pro_user_id, domain, verify_token, verified_at, mx_configured, created_at
                FROM custom_domain_claims ORDER BY id
                """)
            #expect(claims.map { $0.text("id") } == ["od-a", "od-b", "od-both", "pd-b", "pd-both", "pd-c"])
            #expect(claims.map { $0.text("owner_id") } == ["o1", "o1", "o2", nil, nil, nil])
            #expect(claims.map { $0.text("pro_user_id") } == [nil, nil, nil, "u2", "u1", "u1"])
            #expect(claims.map { $0.text("domain") } == [
                "a.example", "b.example", "both.example", "b.example", "both.example", "c.example",
            ])
            #expect(claims.map { $0.text("verify_token") } == ["tok-oa", "tok-ob", "tok-o-both", "tok-pb", "tok-p-both", "tok-pc"])
            // Both tables held both.example verified: the claim verified first (the Pro user's, at 60) keeps it.
            #expect(claims.map { $0.int("verified_at") } == [50, nil, nil, nil, 60, 55])
            #expect(claims.map { $0.int("mx_configured") } == [1, 0, 0, 1, 1, 0])
            #expect(claims.map { $0.int("created_at") } == [10, 20, 30, 21, 31, 11])

            // The old tables are gone.
            for table in ["owner_domains", "mailbox_pro_domains"] {
                #expect(throws: (any Error).self) { _ = try rows("SELECT 1 FROM \(table)") }
            }
            // One verified claim a domain across holders; one claim a holder a domain; exactly one holder a claim.
            try run("UPDATE custom_domain_claims SET verified_at = 80 WHERE id = 'pd-b'")
            #expect(throws: (any Error).self) {
                try run("UPDATE custom_domain_claims SET verified_at = 81 WHERE id = 'od-b'")
            }
            #expect(throws: (any Error).self) {
                try run(
                    """
                    INSERT INTO custom_domain_claims (id, owner_id, domain, verify_token, created_at)
                    VALUES ('dup', 'o1', 'a.example', 't', 1)
                    """)
            }
            #expect(throws: (any Error).self) {
                try run(
                    """
                    INSERT INTO custom_domain_claims (id, owner_id, pro_user_id, domain, verify_token, created_at)
                    VALUES ('two', 'o2', 'u2', 'z.example', 't', 1)
                    """)
            }
            #expect(throws: (any Error).self) {
                try run("INSERT INTO custom_domain_claims (id, domain, verify_token, created_at) VALUES ('none', 'z.example', 't', 1)")
            }
            try run(
                "INSERT INTO custom_domain_claims (id, pro_user_id, domain, verify_token, created_at) VALUES ('pd-a', 'u2', 'a.example', 't', 1)")

            // The holders' cascades.
            try run("DELETE FROM mailbox_pro_users WHERE id = 'u1'")
            try run("DELETE FROM owners WHERE id = 'o2'")
            #expect(try rows("SELECT id FROM custom_domain_claims ORDER BY id").map { $0.text("id") } == [
                "od-a", "od-b", "pd-a", "pd-b",
            ])
        }
    }
}
