import Logging
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

/// `requireSynchronousStandby` (POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY): on the tests' server, which has no
/// standby and an empty `synchronous_standby_names` (what a primary reloaded by a restarting Patroni has for a moment,
/// Patroni #2841), a committed write is never acknowledged: it fails `.inDoubt`, though committed, and is counted as
/// such; reads and read-only transactions pass; without the requirement the same writes succeed.
@Suite("PostgreSQL: a write must have waited for a synchronous standby when one is required", .onPostgres)
struct PostgresSynchronousStandbyTests {
    func connection(required: Bool) throws -> PostgresConnection {
        let url = try PostgresTestServer.shared().freshDatabase()
        try PostgresConnection(url: url).execute("CREATE TABLE s (id BIGINT PRIMARY KEY)")
        return try PostgresConnection(url: url, requireSynchronousStandby: required)
    }

    func ids(_ connection: PostgresConnection) throws -> [Int64] {
        try connection.query("SELECT id FROM s ORDER BY id").compactMap { $0.int("id") }
    }

    @Test("required: a write transaction and a write outside one fail .inDoubt naming the statement, though committed")
    func writesInDoubt() throws {
        let connection = try connection(required: true)
        #expect {
            try connection.transaction { try connection.run("INSERT INTO s (id) VALUES (?)", [.integer(1)]) }
        } throws: {
            guard let error = $0 as? StorageError else { return false }
            return error.code == .inDoubt && error.isUnavailable && error.message.contains("INSERT INTO s (id)")
                && error.message.contains("synchronous_standby_names empty")
        }
        #expect {
            try connection.run("INSERT INTO s (id) VALUES (?)", [.integer(2)])
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        #expect {
            try connection.execute("UPDATE s SET id = id + 10")
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        // Committed: what the client must not be told succeeded (a manager may rewind it), nor told failed.
        #expect(try ids(connection) == [11, 12])
    }

    @Test("required: reads, a transaction that only reads and a read-only transaction pass")
    func readsPass() throws {
        let connection = try connection(required: true)
        #expect(try connection.query("SELECT 1 AS one").first?.int("one") == 1)
        #expect(try connection.transaction { try connection.query("SELECT count(*) AS n FROM s") }.first?.int("n") == 0)
        #expect(try connection.readTransaction { try connection.query("SELECT count(*) AS n FROM s") }.count == 1)
    }

    @Test("not required (the default): the same writes are acknowledged")
    func notRequired() throws {
        let connection = try connection(required: false)
        try connection.transaction { try connection.run("INSERT INTO s (id) VALUES (?)", [.integer(1)]) }
        try connection.run("INSERT INTO s (id) VALUES (?)", [.integer(2)])
        #expect(try ids(connection) == [1, 2])
    }

    @Test("the database answers such a write .inDoubt (503) and counts it as no_synchronous_standby")
    func countedByReason() async throws {
        let url = try PostgresTestServer.shared().freshDatabase()
        try PostgresConnection(url: url).execute("CREATE TABLE s (id BIGINT PRIMARY KEY)")
        let reasons = Mutex<[CommitDoubtReason]>([])
        let pool = PostgresPool(
            [try PostgresConnection(url: url, requireSynchronousStandby: true)], label: "test", timeout: .seconds(10),
            connect: { try PostgresConnection(url: url, requireSynchronousStandby: true) },
            onDoubt: { _, reason in reasons.withLock { $0.append(reason) } })
        defer { pool.close() }
        await #expect {
            try await pool.async { connection in
                try connection.transaction { try connection.run("INSERT INTO s (id) VALUES (?)", [.integer(1)]) }
            }
        } throws: { ($0 as? StorageError)?.code == .inDoubt && ($0 as? StorageError)?.isUnavailable == true }
        #expect {
            try pool.sync { try $0.run("INSERT INTO s (id) VALUES (?)", [.integer(2)]) }
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        #expect(reasons.withLock { $0 } == [.noSynchronousStandby, .noSynchronousStandby])
        let database = try PostgresDatabase(url: url, count: 1, requireSynchronousStandby: true, logger: Logger(label: "test"))
        defer { database.close() }
        await #expect {
            try await database.write { try $0.run("INSERT INTO s (id) VALUES (?)", [.integer(3)]) }
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        #expect(try await database.read { try $0.query("SELECT count(*) AS n FROM s") }.first?.int("n") == 3)
    }

    @Test("what may write: anything but a SELECT")
    func mayWrite() {
        #expect(!PostgresConnection.mayWrite("SELECT 1"))
        #expect(!PostgresConnection.mayWrite("  select id FROM s"))
        #expect(!PostgresConnection.mayWrite("(SELECT 1) UNION (SELECT 2)"))
        #expect(!PostgresConnection.mayWrite("COMMIT"))
        #expect(PostgresConnection.mayWrite("INSERT INTO s (id) VALUES (?)"))
        #expect(PostgresConnection.mayWrite("WITH d AS (DELETE FROM s RETURNING id) SELECT id FROM d"))
        #expect(PostgresConnection.mayWrite("UPDATE s SET id = 1"))
    }
}
