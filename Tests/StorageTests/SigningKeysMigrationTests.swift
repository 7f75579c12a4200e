import PosternTestSupport
import Testing

@testable import Storage

/// Migration 0011 lets `signing_keys` hold Ed25519 keys: on a database migrated to 0010 with keys in it, the keys
/// are kept as they were, `ed25519` rows are taken afterwards, and other kinds are still refused.
@Suite("Migration 0011: Ed25519 signing keys", .serialized)
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
        "0077 keeps the existing keys and takes p256 rows; a relying party made before is public and keeps its algorithm",
        arguments: StorageBackend.allCases)
    func p256Kind(backend: StorageBackend) throws {
        try backend.withDatabase(migratedTo: 75) { database, all in
            let name = "0077_openid_claims_pairwise_es256.sql"
            #expect(all.contains { $0.version == 77 && $0.name == name })
            let insert =
                "INSERT INTO signing_keys (kid, kind, created_at, signs_from, generation, sealed) VALUES (?, ?, ?, ?, ?, ?)"
            func row(_ kid: String, _ kind: String, _ generation: Int64) -> [SQLValue] {
                [.text(kid), .text(kind), .integer(100), .integer(100), .integer(generation), .blob([1, 2, 3])]
            }
            _ = try database.writeSync { try $0.run(insert, row("e1", "ed25519", 1)) }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("p0", "p256", 2)) } }
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
            _ = try database.writeSync { try $0.run(insert, row("p1", "p256", 2)) }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("x1", "ecdsa", 3)) } }
            #expect(throws: (any Error).self) { try database.writeSync { try $0.run(insert, row("p1", "p256", 4)) } }
            let keys = try database.readSync {
                try $0.query("SELECT kid, kind, sealed FROM signing_keys ORDER BY generation", [])
            }
            #expect(keys.map { $0.text("kind") } == ["ed25519", "p256"])
            #expect(keys.allSatisfy { $0.blob("sealed") == [1, 2, 3] })
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
        }
    }
}
