import PosternTestSupport
import Testing

@testable import Storage

/// Migration 0011 lets `signing_keys` hold Ed25519 keys: on a database migrated to 0010 with keys in it, the keys
/// are kept as they were, `ed25519` rows are taken afterwards, and other kinds are still refused. Migration 0080 gives
/// P-256 keys a table of their own and leaves `signing_keys` as it was.
@Suite("Migrations 0011 and 0080: Ed25519 signing keys, P-256 keys in a table of their own", .serialized)
struct SigningKeysMigrationTests {
    @Test(
        "0011 keeps the existing keys and takes ed25519 rows; unknown kinds stay refused",
        arguments: StorageBackend.allCases)
    func ed25519Kind(backend: StorageBackend) throws {
        try backend.withDatabase(migratedTo: 10) { database, all in
            #expect(all.contains { $0.version == 11 && $0.name == "0011_signing_keys_ed25519.sql" })
            let insert =
                "INSERT INTO signing_keys (kid, kind, created_at, signs_from, generation, sealed) VALUES (?, ?, ?, ?, ?, ?)"
            func row(_ kid: String, _ kind: String, _ generation: Int64) -> [SQLValue] {
                [.text(kid), .text(kind), .integer(100), .integer(100), .integer(generation), .blob([1, 2, 3])]
            }
            _ = try database.writeSync { try $0.run(insert, row("r1", "rsa", 1)) }
            _ = try database.writeSync { try $0.run(insert, row("h1", "hmac", 2)) }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("e0", "ed25519", 3)) } }

            #expect(try Migrator(migrations: all).migrate(database).contains("0011_signing_keys_ed25519.sql"))
            _ = try database.writeSync { try $0.run(insert, row("e1", "ed25519", 3)) }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("x1", "ecdsa", 4)) } }
            // The constraints of 0009 came through: kid and generation stay unique.
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("e1", "ed25519", 5)) } }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("e2", "ed25519", 3)) } }
            let rows = try database.readSync {
                try $0.query("SELECT kid, kind, generation, sealed FROM signing_keys ORDER BY generation", [])
            }
            #expect(rows.map { $0.text("kid") } == ["r1", "h1", "e1"])
            #expect(rows.map { $0.text("kind") } == ["rsa", "hmac", "ed25519"])
            #expect(rows.allSatisfy { $0.blob("sealed") == [1, 2, 3] })
        }
    }

    @Test(
        """
        0080 keeps signing_keys as the release before reads it (p256 still refused there) and takes P-256 keys in \
        signing_keys_p256; a relying party made before is public and keeps its algorithm; mail grants take claims
        """,
        arguments: StorageBackend.allCases)
    func p256Table(backend: StorageBackend) throws {
        try backend.withDatabase(migratedTo: 79) { database, all in
            let name = "0080_openid_claims_pairwise_es256.sql"
            #expect(all.contains { $0.version == 80 && $0.name == name })
            let insert =
                "INSERT INTO signing_keys (kid, kind, created_at, signs_from, generation, sealed) VALUES (?, ?, ?, ?, ?, ?)"
            let insertP256 =
                "INSERT INTO signing_keys_p256 (kid, created_at, signs_from, generation, sealed) VALUES (?, ?, ?, ?, ?)"
            func row(_ kid: String, _ kind: String, _ generation: Int64) -> [SQLValue] {
                [.text(kid), .text(kind), .integer(100), .integer(100), .integer(generation), .blob([1, 2, 3])]
            }
            func p256(_ kid: String, _ generation: Int64) -> [SQLValue] {
                [.text(kid), .integer(100), .integer(100), .integer(generation), .blob([4, 5, 6])]
            }
            _ = try database.writeSync { try $0.run(insert, row("e1", "ed25519", 1)) }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insertP256, p256("p0", 2)) } }
            _ = try database.writeSync { connection in
                try connection.run(
                    """
                    INSERT INTO oauth_confidential_clients (client_id, client_name, secret_digest, auth_method, scope,
                        created_at)
                    VALUES ('rp', 'RP', ?, 'client_secret_basic', 'mail.read', 1)
                    """, [.blob([UInt8](repeating: 1, count: 32))])
                try connection.run(
                    "INSERT INTO oidc_relying_parties (client_id, redirect_uris, id_token_alg) VALUES ('rp', '[]', 'EdDSA')",
                    [])
            }

            #expect(try Migrator(migrations: all).migrate(database).contains(name))
            // signing_keys is what the release before reads: its kinds only.
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("p1", "p256", 2)) } }
            _ = try database.writeSync { try $0.run(insertP256, p256("p1", 2)) }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insertP256, p256("p1", 3)) } }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insertP256, p256("p2", 2)) } }
            let keys = try database.readSync { try $0.query("SELECT kid, kind, sealed FROM signing_keys", []) }
            #expect(keys.map { $0.text("kind") } == ["ed25519"] && keys.first?.blob("sealed") == [1, 2, 3])
            let p256Keys = try database.readSync { try $0.query("SELECT kid, sealed FROM signing_keys_p256", []) }
            #expect(p256Keys.map { $0.text("kid") } == ["p1"] && p256Keys.first?.blob("sealed") == [4, 5, 6])
            let party = try #require(
                try database.readSync {
                    try $0.query(
                        """
                        SELECT subject_type, sector_identifier, id_token_signed_response_alg, id_token_alg
                        FROM oidc_relying_parties
                        """, [])
                }.first)
            #expect(party.text("subject_type") == "public" && party.text("sector_identifier") == nil)
            #expect(party.text("id_token_signed_response_alg") == nil && party.text("id_token_alg") == "EdDSA")
            #expect(throws: (any Error).self) {
                try database.writeSync { try $0.run("UPDATE oidc_relying_parties SET subject_type = 'secret'", []) }
            }
            _ = try database.writeSync {
                try $0.run("UPDATE oidc_relying_parties SET id_token_signed_response_alg = 'ES256'", [])
            }
            #expect(throws: (any Error).self) {
                try database.writeSync {
                    try $0.run("UPDATE oidc_relying_parties SET id_token_signed_response_alg = 'HS256'", [])
                }
            }
            _ = try database.readSync { try $0.query("SELECT claims FROM oidc_mail_grants", []) }
            if backend == .postgres {
                // 0079's trigger now calls 0016's function; 0079's copy of it is left for a later release to drop.
                let function = try database.readSync {
                    try $0.query(
                        """
                        SELECT p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                        WHERE t.tgname = 'oidc_mail_grant_revoked'
                        """, [])
                }
                #expect(function.map { $0.text("proname") } == ["oauth_grant_revoked"])
            }
        }
    }
}
