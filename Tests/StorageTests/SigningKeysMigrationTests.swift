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
}
