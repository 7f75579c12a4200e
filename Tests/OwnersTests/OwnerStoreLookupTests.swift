import Owners
import PosternTestSupport
import Storage
import Testing

/// The `owners` table read on another caller's connection (issue 52): `postern audit --owner` finds an owner's id by
/// email, `postern agent list` the emails of the owners who hold agents.
@Suite("Owners: lookups on the caller's connection", .serialized)
struct OwnerStoreLookupTests {
    static func database(_ backend: StorageBackend) throws -> TestDatabase {
        let test = try backend.makeDatabase()
        for (id, email) in [("owner-a", "ada@example.com"), ("owner-b", "bob@example.com")] {
            _ = try test.database.writeSync { connection in
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, ?, 'x', 0)",
                    [.text(id), .text(email)])
            }
        }
        return test
    }

    @Test("ownerID(email:) finds the owner by exact (normalized) email, nil for any other", arguments: StorageBackend.allCases)
    func ownerID(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let found = try await test.database.read { connection in
            try ["ada@example.com", "bob@example.com", "Ada@example.com", "nobody@example.com"].map {
                try OwnerStore.ownerID(email: $0, connection)
            }
        }
        #expect(found == ["owner-a", "owner-b", nil, nil])
    }

    @Test("emails(ids:) gives each existing owner's email, once per id; none for unknown ids or none asked",
        arguments: StorageBackend.allCases)
    func emails(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let emails = try await test.database.read { connection in
            try OwnerStore.emails(ids: ["owner-a", "owner-b", "owner-a", "owner-gone"], connection)
        }
        #expect(emails == ["owner-a": "ada@example.com", "owner-b": "bob@example.com"])
        #expect(try await test.database.read { try OwnerStore.emails(ids: [String](), $0) }.isEmpty)
    }
}
