import Testing

@testable import Storage

/// A row's insert as a value, and two of them written both or neither: one statement on PostgreSQL, a transaction of
/// their own on SQLite (issue 86: a client credentials grant and its audit line).
@Suite("SQLInsert", .timeLimit(.minutes(1)))
struct SQLInsertTests {
    @Test("the statement of a row: its columns in order, one placeholder each")
    func statement() {
        let row = SQLInsert(into: "lines", ["id": .text("a"), "n": .integer(1), "note": .null])
        #expect(row.sql == "INSERT INTO lines (id, n, note) VALUES (?, ?, ?)")
        #expect(row.columns == ["id", "n", "note"])
        #expect(row.values == [.text("a"), .integer(1), .null])
    }

    @Test(
        "insert(_:then:) writes both rows, the second's nulls and numbers as bound; a failing second writes neither",
        arguments: Backend.allCases)
    func bothOrNeither(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            let database = try open()
            try await database.write { connection in
                try connection.execute("CREATE TABLE granted (id TEXT PRIMARY KEY NOT NULL, at BIGINT NOT NULL)")
                try connection.execute("CREATE TABLE noted (at BIGINT NOT NULL, what TEXT NOT NULL, who TEXT)")
            }
            func write(_ id: String, what: String?) async throws {
                try await database.write { connection in
                    try connection.insert(
                        SQLInsert(into: "granted", ["id": .text(id), "at": .integer(7)]),
                        then: SQLInsert(
                            into: "noted", ["at": .integer(8), "what": what.map(SQLValue.text) ?? .null, "who": .null]))
                }
            }
            try await write("a", what: "granted a")
            // The second row breaks NOT NULL: PostgreSQL fails the one statement, SQLite rolls the first insert back.
            await #expect(throws: StorageError.self) { try await write("b", what: nil) }
            // The first row breaks the primary key: the second is not written either.
            await #expect(throws: StorageError.self) { try await write("a", what: "granted a again") }
            let (granted, noted) = try await database.read { connection in
                (
                    try connection.query("SELECT id, at FROM granted ORDER BY id").map {
                        "\($0.text("id") ?? "")@\($0.int("at") ?? 0)"
                    },
                    try connection.query("SELECT at, what, who FROM noted").map {
                        "\($0.int("at") ?? 0) \($0.text("what") ?? "") \($0.text("who") ?? "null")"
                    }
                )
            }
            #expect(granted == ["a@7"])
            #expect(noted == ["8 granted a null"])
        }
    }
}
