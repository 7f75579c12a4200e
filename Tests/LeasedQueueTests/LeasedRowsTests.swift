import LeasedQueue
import PosternTestSupport
import Storage
import Testing

/// The one lease every queue holds its rows by, over a table of its own on both backends: a claim takes due rows
/// that no live lease holds, its token names them, a lease that ran out lets another claim take them, a row given back
/// is due again, and the next due time is the later of a row's next attempt and its lease. The queue is described in
/// types (its columns, the matches its rows must hold, its parent row), never in SQL text.
@Suite("Leased rows")
struct LeasedRowsTests {
    let rows = LeasedRows(table: "test_jobs", nextAttempt: "next_attempt", leaseUntil: "lease_until")
    /// The jobs waiting (`state = 'waiting'`) whose group is open, as the webhook events of active webhooks.
    let grouped = LeasedRows(
        table: "test_jobs", nextAttempt: "next_attempt", leaseUntil: "lease_until",
        waiting: [LeasedRows.Match("state", .text("waiting"))],
        parent: LeasedRows.Parent(
            table: "test_groups", key: "group_id", match: LeasedRows.Match("status", .text("open"))))

    func claim(
        _ database: any SQLDatabase, _ rows: LeasedRows? = nil, where matches: [LeasedRows.Match] = [], token: String,
        now: Int64, limit: Int?
    ) async throws -> [String] {
        let rows = rows ?? self.rows
        return try await database.write { connection in
            try connection.transaction {
                try rows.lease(
                    where: matches, orderedBy: ["next_attempt", "id"], limit: limit, to: token, until: now + 30,
                    now: now, connection)
                return try connection.query(
                    "SELECT id FROM test_jobs WHERE \(rows.heldBy) ORDER BY id", [.text(token)]
                ).compactMap { $0.text("id") }
            }
        }
    }

    func nextDue(_ database: any SQLDatabase, _ rows: LeasedRows? = nil) async throws -> Int64? {
        let rows = rows ?? self.rows
        return try await database.read { try rows.nextDue($0) }
    }

    func makeJobs(_ backend: StorageBackend, _ jobs: [(String, Int, String, String)]) async throws -> TestDatabase {
        let test = try backend.makeDatabase()
        try await test.database.write { connection in
            try connection.run("CREATE TABLE test_groups (id TEXT PRIMARY KEY, status TEXT NOT NULL)")
            try connection.run("INSERT INTO test_groups (id, status) VALUES ('g1', 'open'), ('g2', 'closed')")
            try connection.run(
                """
                CREATE TABLE test_jobs (id TEXT PRIMARY KEY, next_attempt BIGINT NOT NULL,
                    lease_until BIGINT NOT NULL DEFAULT 0, lease_token TEXT, state TEXT NOT NULL,
                    group_id TEXT NOT NULL REFERENCES test_groups(id))
                """)
            for (id, due, state, group) in jobs {
                try connection.run(
                    "INSERT INTO test_jobs (id, next_attempt, state, group_id) VALUES (?, ?, ?, ?)",
                    [.text(id), .integer(Int64(due)), .text(state), .text(group)])
            }
        }
        return test
    }

    @Test("claim, hold, run out, give back, next due", arguments: StorageBackend.allCases)
    func lifecycle(backend: StorageBackend) async throws {
        let test = try await makeJobs(backend, [("a", 100, "waiting", "g1"), ("b", 100, "waiting", "g1"),
            ("c", 500, "waiting", "g1")])
        let database = test.database
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

    @Test(
        "only waiting rows of an open parent are claimed, picked and next due; a claim's matches narrow it",
        arguments: StorageBackend.allCases)
    func scope(backend: StorageBackend) async throws {
        let test = try await makeJobs(
            backend,
            [("a", 100, "waiting", "g1"), ("b", 50, "done", "g1"), ("c", 40, "waiting", "g2"),
                ("d", 200, "waiting", "g1"), ("e", 300, "waiting", "g1")])
        let database = test.database
        // b is not waiting and c's group is closed: neither is due, however early.
        #expect(try await nextDue(database, grouped) == 100)
        let grouped = grouped
        let picked = try await database.write { connection in
            try connection.transaction {
                try grouped.due(["id", "group_id"], orderedBy: ["next_attempt"], now: 250, connection).map {
                    "\($0.text("id") ?? "?")/\($0.text("group_id") ?? "?")"
                }
            }
        }
        #expect(picked == ["a/g1", "d/g1"])
        // A match narrows the claim to the rows that hold it; the limit takes the first in order.
        #expect(
            try await claim(database, grouped, where: [LeasedRows.Match("id", .text("d"))], token: "t1", now: 250,
                limit: nil) == ["d"])
        #expect(try await claim(database, grouped, token: "t2", now: 400, limit: 1) == ["a"])
        // d's lease ran out at 280: the next claim takes it again, with e.
        #expect(try await claim(database, grouped, token: "t3", now: 400, limit: nil) == ["d", "e"])
        // Every waiting row of an open group is leased: the queue is next due when the leases run out.
        #expect(try await nextDue(database, grouped) == 430)
        // The closed group opens: c is due at once.
        _ = try await database.write { try $0.run("UPDATE test_groups SET status = 'open' WHERE id = 'g2'") }
        #expect(try await nextDue(database, grouped) == 40)
    }

    @Test("the lease's assignments and condition name its columns")
    func fragments() {
        #expect(rows.released == "lease_until = 0, lease_token = NULL")
        #expect(rows.heldBy == "lease_token = ?")
    }
}
