import Foundation
import Logging
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

/// Reads of one statement on the pipelined read-only sessions (`PostgresPipe`, through `PostgresDatabase.read`): each
/// caller gets its own rows with many in flight at once, and whatever the pipe cannot answer runs on the pool, once,
/// with the pool's errors.
@Suite("PostgreSQL read pipe", .serialized, .timeLimit(.minutes(2)))
struct PostgresPipeTests {
    let url: String
    let database: PostgresDatabase

    init() throws {
        url = try PostgresTestServer.shared().freshDatabase()
        let setup = try PostgresConnection(url: url)
        try setup.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL)")
        for id in 0..<50 { try setup.run("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(Int64(id)), .text("n\(id)")]) }
        // Long enough for a loaded machine (many reads at once); the timeout test opens its own, of 2 s.
        database = try PostgresDatabase(url: url, count: 3, commitTimeout: .seconds(30), logger: Logger(label: "t"))
    }

    /// A database of the suite's table whose reads time out after 2 s (the timeout tests').
    func twoSecondDatabase() throws -> PostgresDatabase {
        try PostgresDatabase(url: url, count: 3, commitTimeout: .seconds(2), logger: Logger(label: "t"))
    }

    func name(_ id: Int64, on database: PostgresDatabase? = nil) async throws -> String? {
        try await (database ?? self.database).read {
            try $0.query("SELECT name FROM t WHERE id = ?", [.integer(id)]).first?.text("name")
        }
    }

    /// Whether the pipe answers a read of `id` (right) within 4 s, its session made again.
    func pipeAnswersAgain(id: Int64, on database: PostgresDatabase? = nil) async throws -> Bool {
        let database = database ?? self.database
        for _ in 0..<40 {
            let before = database.pipeAnswers
            #expect(try await name(id, on: database) == "n\(id)")
            if database.pipeAnswers > before { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test("256 concurrent reads, many in flight on one session, each answered with its own row by the pipe")
    func concurrentReads() async throws {
        defer { database.close() }
        let before = database.pipeAnswers
        let answers = try await withThrowingTaskGroup(of: (Int64, String?).self) { group in
            for round in 0..<PostgresPipe.depthLimit {  // more could be in flight at once: the pool takes those
                let id = Int64(round % 60)  // 50 to 59 have no row
                group.addTask { (id, try await name(id)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == PostgresPipe.depthLimit)
        for (id, answer) in answers { #expect(answer == (id < 50 ? "n\(id)" : nil), "id \(id)") }
        #expect(database.pipeAnswers - before == PostgresPipe.depthLimit)
        database.close()  // and again by the defer: a second close returns at once
    }

    @Test("reads whose statements fill the socket (libpq takes in answers while it sends) are all answered by the pipe")
    func statementsFillingTheSocket() async throws {
        defer { database.close() }
        let before = database.pipeAnswers
        let filler = String(repeating: "x", count: 200_000)
        let lengths = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
            for round in 0..<64 {
                let text = filler + String(round)
                group.addTask {
                    let length = try await database.read {
                        try $0.query("SELECT length(?) AS n", [.text(text)]).first?.int("n")
                    }
                    return (text.count, length)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(lengths.count == 64)
        for (sent, length) in lengths { #expect(length == Int64(sent)) }
        #expect(database.pipeAnswers - before == 64)
    }

    @Test("a database released without close ends all its sessions, its pipes' too")
    func releasedWithoutClose() async throws {
        defer { database.close() }
        let other = try PostgresTestServer.shared().freshDatabase()
        func openAndRelease() async throws -> String? {
            let released = try PostgresDatabase(url: other, count: 3, commitTimeout: .seconds(30), logger: Logger(label: "t"))
            let before = released.pipeAnswers
            let name = try await released.read { try $0.query("SELECT current_database() AS d").first?.text("d") }
            #expect(released.pipeAnswers - before == 1)
            return name
        }
        let name = try #require(try await openAndRelease())
        let admin = try PostgresConnection(url: url)
        var left: Int64?
        for _ in 0..<100 {
            left = try admin.query(
                "SELECT count(*) AS c FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend'",
                [.text(name)]
            ).first?.int("c")
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(left == 0, "sessions left 5 s after the database was released")
    }

    @Test("a body of two statements or a transaction runs on the pool, whole; its results are right")
    func beyondOneStatement() async throws {
        defer { database.close() }
        var before = database.pipeAnswers
        let both = try await database.read { connection in
            try [1, 2].map { try connection.query("SELECT name FROM t WHERE id = ?", [.integer($0)]).first?.text("name") }
        }
        #expect(both == ["n1", "n2"])
        // Its first statement is all the capture sees (the body stops there): the pipe answers it, and the replay,
        // asked for a second, sends the body to the pool.
        #expect(database.pipeAnswers - before == 1)
        // Remembered: the same body goes straight to the pool the next time.
        before = database.pipeAnswers
        let again = try await database.read { connection in
            try [3, 4].map { try connection.query("SELECT name FROM t WHERE id = ?", [.integer($0)]).first?.text("name") }
        }
        #expect(again == ["n3", "n4"])
        #expect(database.pipeAnswers == before)
        before = database.pipeAnswers
        let inTransaction = try await database.read { connection in
            try connection.readTransaction { try connection.query("SELECT count(*) AS c FROM t").first?.int("c") }
        }
        #expect(inTransaction == 50)
        #expect(database.pipeAnswers == before)
    }

    @Test("a body that catches its statement's error (and so the capture's stop) runs on the pool, once more only")
    func bodySwallowingTheStop() async throws {
        defer { database.close() }
        let before = database.pipeAnswers
        let runs = Atomic<Int>(0)
        let name = try await database.read { connection in
            runs.add(1, ordering: .relaxed)
            return (try? connection.query("SELECT name FROM t WHERE id = ?", [.integer(8)]))?.first?.text("name")
        }
        #expect(name == "n8")
        #expect(database.pipeAnswers == before)
        #expect(runs.load(ordering: .relaxed) == 2, "the capture's run and the pool's")
    }

    @Test("a body sent to the pool after its replay stopped has what is left of the timeout there, not a second one")
    func poolGetsWhatIsLeft() async throws {
        defer { database.close() }
        let database = try twoSecondDatabase()
        defer { database.close() }
        let started = ContinuousClock.now
        // 1.2 s on the pipe, then the body, whole, on the pool: 1.2 s more, past the 0.8 s left.
        await #expect(throws: StorageError.self) {
            try await database.read { connection in
                _ = try connection.query("SELECT 1 AS s FROM pg_sleep(?)", [.real(1.2)])
                return try connection.query("SELECT name FROM t WHERE id = ?", [.integer(9)]).first?.text("name")
            }
        }
        let waited = ContinuousClock.now - started
        #expect(waited < .seconds(3), "\(waited)")  // not the pool's whole 2 s again
    }

    @Test("a failing statement throws what the pool throws (the pipe declines it, the pool runs it)")
    func failingStatement() async throws {
        defer { database.close() }
        let viaRead = await #expect(throws: StorageError.self) {
            try await database.read { try $0.query("SELECT nothing FROM missing_table WHERE id = ?", [.integer(1)]) }
        }
        let viaWrite = await #expect(throws: StorageError.self) {
            try await database.write { try $0.query("SELECT nothing FROM missing_table WHERE id = ?", [.integer(1)]) }
        }
        #expect(viaRead?.code == viaWrite?.code)
        #expect(try await name(3) == "n3", "the session is usable after the failed statement")
    }

    @Test("a write in a read body is refused by the pipe's read-only session and done once, by the pool")
    func writeInRead() async throws {
        defer { database.close() }
        let before = database.pipeAnswers
        let inserted = try await database.read {
            try $0.query("INSERT INTO t (id, name) VALUES (?, ?) RETURNING id", [.integer(100), .text("w")]).first?.int("id")
        }
        #expect(inserted == 100)
        #expect(database.pipeAnswers == before)
        #expect(try await name(100) == "w")
    }

    @Test("a session the server ended is made again: reads answer throughout, and on the pipe again after")
    func sessionLost() async throws {
        defer { database.close() }
        #expect(try await name(4) == "n4")
        let admin = try PostgresConnection(url: url)
        _ = try admin.query(
            """
            SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
            """)
        // pg_terminate_backend only signals: the pool notices a connection closed while idle once the backend's
        // message is there, so the reads begin after the backends are gone.
        for _ in 0..<50 {
            let left = try admin.query(
                """
                SELECT count(*) AS c FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                """).first?.int("c")
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // A pool connection may still fail the call it was carrying when the loss reached it (PostgresConnection); the
        // pipe's reads go to the pool until the reader has made its session again.
        for _ in 0..<5 { _ = try? await name(5) }
        #expect(try await pipeAnswersAgain(id: 6), "the pipe did not answer again within 4 s")
    }

    @Test("a read not answered within the timeout is .unavailable in time; the pipe answers again after")
    func readTimeout() async throws {
        defer { database.close() }
        let database = try twoSecondDatabase()
        defer { database.close() }
        let started = ContinuousClock.now
        await #expect {
            try await database.read { try $0.query("SELECT pg_sleep(?) AS s", [.real(60)]) }
        } throws: { ($0 as? StorageError)?.code == .unavailable }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(2) && waited < .seconds(4), "\(waited)")
        // The statement does not keep running on the server (statement_timeout, a second past the timeout).
        let admin = try PostgresConnection(url: url)
        var sleeping: Int64?
        for _ in 0..<60 {
            sleeping = try admin.query(
                """
                SELECT count(*) AS c FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_sleep%'
                  AND state = 'active'
                """
            ).first?.int("c")
            if sleeping == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(sleeping == 0, "the timed-out statement still ran on the server 3 s after the timeout")
        #expect(try await pipeAnswersAgain(id: 7, on: database), "the pipe did not answer again within 4 s")
    }
}
