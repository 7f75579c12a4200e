import Testing

@testable import Storage

/// An insert under a cap on the rows nobody signed in holds (the passkey challenges', the sign-in transactions'),
/// counted in the database on the writer's connection.
@Suite("Row cap", .timeLimit(.minutes(1)))
struct RowCapTests {
    @Test("an insert runs while the counted rows are under the limit, then is refused; uncapped inserts always run",
        arguments: Backend.allCases)
    func capped(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            let database = try open()
            try await database.write { try $0.execute("CREATE TABLE capped_rows (id TEXT PRIMARY KEY, holder TEXT)") }
            let cap = RowCap(
                count: "SELECT COUNT(*) AS n FROM capped_rows WHERE holder IS NULL AND id <> ?",
                bindings: [.text("ignored")], limit: 2)
            func insert(_ id: String, holder: String?, _ cap: RowCap?) async throws -> Bool {
                try await database.write { connection in
                    try connection.insert(
                        "INSERT INTO capped_rows (id, holder) VALUES (?, ?)",
                        [.text(id), holder.map(SQLValue.text) ?? .null], within: cap.map { [$0] } ?? [])
                }
            }
            #expect(try await insert("a", holder: nil, cap))
            #expect(try await insert("held", holder: "h", nil), "a holder's row is not capped nor counted")
            #expect(try await insert("b", holder: nil, cap))
            #expect(try await insert("c", holder: nil, cap) == false, "the cap is reached")
            #expect(try await insert("held2", holder: "h", nil))
            let rows = try await database.read { try $0.query("SELECT id FROM capped_rows ORDER BY id").map { $0.text("id") } }
            #expect(rows == ["a", "b", "held", "held2"])
        }
    }
}
