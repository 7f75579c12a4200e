import LeasedQueue
import PosternTestSupport
import Storage
import Testing

/// The one lease every queue holds its rows by, over a table of its own on both backends: a claim takes due rows
/// that no live lease holds, its token names them, a lease that ran out lets another claim take them, a row given back
/// is due again, and the next due time is the later of a row's next attempt and its lease.
@Suite("Leased rows")
struct LeasedRowsTests {
    let rows = LeasedRows(table: "test_jobs", nextAttempt: "next_attempt", leaseUntil: "lease_until")

    func claim(_ database: any SQLDatabase, token: String, now: Int64, limit: Int) async throws -> [String] {
        let rows = rows
        return try await database.write { connection in
            try connection.transaction {
                try rows.lease(
                    "SELECT id FROM test_jobs WHERE \(rows.isDue()) ORDER BY next_attempt, id LIMIT ?",
                    [.integer(now), .integer(now), .integer(Int64(limit))], to: token, until: now + 30, now: now,
                    connection)
                return try connection.query(
                    "SELECT id FROM test_jobs WHERE \(rows.heldBy) ORDER BY id", [.text(token)]
                ).compactMap { $0.text("id") }
            }
        }
    }

    func nextDue(_ database: any SQLDatabase) async throws -> Int64? {
        let rows = rows
        return try await database.read { try rows.nextDue(where: "1 = 1", $0) }
    }

    @Test("claim, hold, run out, give back, next due", arguments: StorageBackend.allCases)
    func lifecycle(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let database = test.database
        try await database.write { connection in
            try connection.run(
                """
                CREATE TABLE test_jobs (id TEXT PRIMARY KEY, next_attempt BIGINT NOT NULL,
                    lease_until BIGINT NOT NULL DEFAULT 0, lease_token TEXT)
                """)
            for (id, due) in [("a", 100), ("b", 100), ("c", 500)] {
                try connection.run(
                    "INSERT INTO test_jobs (id, next_attempt) VALUES (?, ?)", [.text(id), .integer(Int64(due))])
            }
        }
        #expect(try await nextDue(database) == 100)
        let first = LeasedRows.newToken()
        #expect(try await claim(database, token: first, now: 100, limit: 2) == ["a", "b"])
        // Held until 130: nothing due for another claim, and the queue is next due when the leases run out.
        #expect(try await claim(database, token: LeasedRows.newToken(), now: 110, limit: 5).isEmpty)
        #expect(try await nextDue(database) == 130)
        // Given back: due again at its next attempt.
        let rows = rows
        _ = try await database.write { try $0.run("UPDATE test_jobs SET \(rows.released) WHERE id = 'a'") }
        #expect(try await nextDue(database) == 100)
        // b's lease ran out: a later claim takes it, and the first token holds nothing any more.
        let later = LeasedRows.newToken()
        #expect(try await claim(database, token: later, now: 140, limit: 5) == ["a", "b"])
        let stillFirst = try await database.read {
            try $0.query("SELECT id FROM test_jobs WHERE \(rows.heldBy)", [.text(first)]).count
        }
        #expect(stillFirst == 0)
        #expect(first != later)
    }

    @Test("SKIP LOCKED on PostgreSQL only, of the table a join locks when named")
    func skipLocked() {
        #expect(LeasedRows.skipLocked(.sqlite).isEmpty)
        #expect(LeasedRows.skipLocked(.sqlite, of: "e").isEmpty)
        #expect(LeasedRows.skipLocked(.postgres) == " FOR UPDATE SKIP LOCKED")
        #expect(LeasedRows.skipLocked(.postgres, of: "e") == " FOR UPDATE OF e SKIP LOCKED")
        #expect(rows.isDue("e") == "e.next_attempt <= ? AND e.lease_until <= ?")
        #expect(rows.released == "lease_until = 0, lease_token = NULL")
    }
}
