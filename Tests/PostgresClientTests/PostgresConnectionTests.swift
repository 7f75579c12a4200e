import Dispatch
import Foundation
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

/// PostgresConnection against a real PostgreSQL 15 (scripts/pg-temp), each test on a database of its own.
@Suite("PostgreSQL connection", .onPostgres, .serialized)
struct PostgresConnectionTests {
    let url: String

    init() throws {
        url = try PostgresTestServer.shared().freshDatabase()
    }

    @Test("every value kind round-trips: NULL, 64-bit integers, doubles, text, bytes (empty and all 256)")
    func values() throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE v (i BIGINT, r DOUBLE PRECISION, t TEXT, b BYTEA)")
        let rows: [[SQLValue]] = [
            [.null, .null, .null, .null],
            [.integer(.min), .real(0.1), .text(""), .blob([])],
            [.integer(.max), .real(-1.5e300), .text("ünïcödé ✉ 'quoted' ?"), .blob((0...255).map { UInt8($0) })],
            [.integer(0), .real(.infinity), .text("line\nbreak\ttab"), .blob([0, 0, 0])],
        ]
        for row in rows {
            #expect(try connection.run("INSERT INTO v (i, r, t, b) VALUES (?, ?, ?, ?)", row) == 1)
        }
        let read = try connection.query("SELECT i, r, t, b FROM v")
        #expect(read.map(\.values) == rows)
        #expect(read.first?.columns == ["i", "r", "t", "b"])
    }

    @Test("integers, booleans and sums read as integers; a fractional numeric as a double")
    func columnTypes() throws {
        let connection = try PostgresConnection(url: url)
        let row = try #require(
            try connection.query(
                "SELECT 7::int2 AS a, 8::int4 AS b, true AS c, false AS d, sum(x) AS e, 1.5::numeric AS f "
                    + "FROM (VALUES (1::bigint), (2::bigint)) AS s(x)"
            ).first)
        #expect(row.int("a") == 7)
        #expect(row.int("b") == 8)
        #expect(row.int("c") == 1)
        #expect(row.int("d") == 0)
        #expect(row.int("e") == 3)
        #expect(row.double("f") == 1.5)
    }

    @Test("run counts changed rows; a statement is prepared once and reused")
    func changedRowsAndCache() throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE c (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
        for id in 1...5 { try connection.run("INSERT INTO c (id, n) VALUES (?, 0)", [.integer(Int64(id))]) }
        #expect(try connection.run("UPDATE c SET n = n + 1 WHERE id <= ?", [.integer(3)]) == 3)
        #expect(try connection.run("DELETE FROM c WHERE id > ?", [.integer(100)]) == 0)
        #expect(try connection.query("SELECT id FROM c WHERE n = ?", [.integer(1)]).count == 3)
        #expect(connection.preparedStatementCount == 4)
    }

    @Test("round trips: a statement costs two the first time (prepare, run) and one after; a read transaction three")
    func roundTrips() throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE r (id TEXT PRIMARY KEY, n BIGINT NOT NULL)")
        try connection.run("INSERT INTO r (id, n) VALUES (?, ?)", [.text("a"), .integer(1)])
        let read = "SELECT n FROM r WHERE id = ?"
        var before = connection.roundTrips
        _ = try connection.query(read, [.text("a")])
        #expect(connection.roundTrips - before == 2, "Parse, then Bind/Execute")
        for _ in 0..<3 {
            before = connection.roundTrips
            #expect(try connection.query(read, [.text("a")]).first?.int("n") == 1)
            #expect(connection.roundTrips - before == 1, "a prepared statement: one round trip, no BEGIN, no Parse")
        }
        before = connection.roundTrips
        _ = try connection.readTransaction { try connection.query(read, [.text("a")]) }
        #expect(connection.roundTrips - before == 3, "BEGIN, the read, COMMIT")
    }

    @Test("constraint failures are classified: unique, not null, check, foreign key")
    func constraints() throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute(
            """
            CREATE TABLE p (id TEXT PRIMARY KEY, n BIGINT NOT NULL CHECK (n >= 0));
            CREATE TABLE k (p_id TEXT NOT NULL REFERENCES p(id));
            """)
        try connection.run("INSERT INTO p (id, n) VALUES (?, ?)", [.text("a"), .integer(1)])
        for (sql, code) in [
            ("INSERT INTO p (id, n) VALUES ('a', 2)", StorageError.Code.constraintUnique),
            ("INSERT INTO p (id, n) VALUES ('b', NULL)", .constraint),
            ("INSERT INTO p (id, n) VALUES ('c', -1)", .constraint),
            ("INSERT INTO k (p_id) VALUES ('nobody')", .constraint),
        ] {
            do {
                try connection.run(sql)
                Issue.record("\(sql) was accepted")
            } catch let error as StorageError {
                #expect(error.code == code, "\(sql): \(error)")
                #expect(error.message.contains("SQLSTATE 23"))
            }
        }
    }

    @Test("a failed transaction leaves nothing; transactions do not nest; the wrong number of values is misuse")
    func transactions() throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t (id) VALUES (?)", [.integer(1)])
                throw Abort()
            }
        }
        #expect(try connection.query("SELECT id FROM t").isEmpty)
        do {
            try connection.transaction { try connection.transaction { () } }
            Issue.record("a nested transaction was accepted")
        } catch let error as StorageError {
            #expect(error.code == .misuse)
        }
        do {
            try connection.run("INSERT INTO t (id) VALUES (?)", [])
            Issue.record("a missing value was accepted")
        } catch let error as StorageError {
            #expect(error.code == .misuse)
        }
        let value = try connection.transaction {
            try connection.run("INSERT INTO t (id) VALUES (?)", [.integer(2)])
            return 42
        }
        #expect(value == 42)
        #expect(try connection.readTransaction { try connection.query("SELECT id FROM t") }.count == 1)
    }

    @Test("read-modify-write transactions on two connections at once lose no increment (serialization retries)")
    func serializableRetries() throws {
        let setup = try PostgresConnection(url: url)
        try setup.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL); INSERT INTO counter VALUES (1, 0)")
        let rounds = 25
        let url = url
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let connection = try PostgresConnection(url: url)
                for _ in 0..<rounds {
                    try connection.transaction {
                        let n = try connection.query("SELECT n FROM counter WHERE id = 1").first?.int("n") ?? -1
                        try connection.run("UPDATE counter SET n = ? WHERE id = 1", [.integer(n + 1)])
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try setup.query("SELECT n FROM counter").first?.int("n") == Int64(2 * rounds))
    }

    @Test("a restart between calls fails none: the closed connection is noticed and replaced before it is used")
    func restart() throws {
        let server = try PostgresTestServer.dedicated()
        let url = try server.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE r (id BIGINT)")
        try server.restart()
        var unavailable = 0
        for attempt in 0..<3 {
            do {
                try connection.run("INSERT INTO r (id) VALUES (?)", [.integer(Int64(attempt))])
            } catch let error as StorageError {
                #expect(error.code == .unavailable, "\(error)")
                #expect(error.isUnavailable)
                unavailable += 1
            }
        }
        #expect(unavailable == 0)
        #expect(try connection.query("SELECT id FROM r").count == 3)
    }

    @Test("a restart inside a transaction fails it whole: the rest never runs on a new connection outside it")
    func restartInTransaction() throws {
        let server = try PostgresTestServer.dedicated()
        let url = try server.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE half (id BIGINT)")
        do {
            try connection.transaction {
                try connection.run("INSERT INTO half (id) VALUES (?)", [.integer(1)])
                try server.restart()
                try connection.run("INSERT INTO half (id) VALUES (?)", [.integer(2)])
            }
            Issue.record("a transaction cut by a restart reported success")
        } catch let error as StorageError {
            #expect(error.code == .unavailable, "\(error)")
        }
        #expect(try connection.query("SELECT id FROM half").isEmpty)
    }

    @Test("while the server is down every call fails with .unavailable; once it is back the same connection works")
    func downAndBack() throws {
        let server = try PostgresTestServer.dedicated()
        let url = try server.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try server.stop()
        defer { try? server.startAgain() }
        for _ in 0..<2 {
            do {
                _ = try connection.query("SELECT 1 AS one")
                Issue.record("a query succeeded with the server down")
            } catch let error as StorageError {
                #expect(error.code == .unavailable, "\(error)")
            }
        }
        do {
            _ = try PostgresConnection(url: url)
            Issue.record("connected with the server down")
        } catch let error as StorageError {
            #expect(error.code == .unavailable)
            #expect(!error.message.contains("password"))
        }
        try server.startAgain()
        #expect(try connection.query("SELECT 1 AS one").first?.int("one") == 1)
    }

    @Test("a multi-host URL skips a host that does not answer and connects to the next")
    func multiHost() throws {
        // Port 1 on loopback refuses at once; libpq then tries the next host.
        let hosts = url.replacingOccurrences(of: "@127.0.0.1:", with: "@127.0.0.1:1,127.0.0.1:")
            + "?target_session_attrs=read-write&connect_timeout=2"
        #expect(hosts != url)
        let connection = try PostgresConnection(url: hosts)
        #expect(try connection.query("SELECT 1 AS one").first?.int("one") == 1)
    }

    @Test("a server that refuses writes is not kept: at connect, and at a reconnection, until it accepts them again")
    func readOnlyServerDropped() throws {
        let admin = try PostgresConnection(url: url)
        let name = try #require(try admin.query("SELECT current_database() AS d").first?.text("d"))
        let connection = try PostgresConnection(url: url)
        #expect(try connection.query("SELECT 1 AS one").count == 1)
        try admin.execute("ALTER DATABASE \(name) SET default_transaction_read_only = on")
        defer { try? admin.execute("ALTER DATABASE \(name) RESET default_transaction_read_only") }
        #expect {
            _ = try PostgresConnection(url: url)
        } throws: { ($0 as? StorageError)?.code == .unavailable && "\($0)".contains("read-only") }
        // The server drops the live session (as a failover does); the reconnection lands read-only and is dropped.
        _ = try admin.query(
            "SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()",
            [.text(name)])
        usleep(100_000)
        for _ in 0..<2 {
            #expect {
                _ = try connection.query("SELECT 1 AS one")
            } throws: { ($0 as? StorageError)?.code == .unavailable && "\($0)".contains("read-only") }
        }
        try admin.execute("ALTER DATABASE \(name) RESET default_transaction_read_only")
        #expect(try connection.query("SELECT 1 AS one").first?.int("one") == 1)
        try connection.run("CREATE TABLE w (x BIGINT)")
    }
}
