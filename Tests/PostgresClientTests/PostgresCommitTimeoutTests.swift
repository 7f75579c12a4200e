import Foundation
import Logging
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

/// The bounded commit, on a server of its own whose synchronous standby is named but never comes
/// (`synchronous_standby_names`): every commit then waits for ever, as with a lost standby, and `statement_timeout`
/// does not end the wait. Reads do not wait; canceling the wait commits locally with PostgreSQL's own warning.
@Suite("PostgreSQL commit timeout", .onPostgres, .serialized, .timeLimit(.minutes(2)))
struct PostgresCommitTimeoutTests {
    let server: PostgresTestServer
    let url: String
    let admin: PostgresConnection

    init() throws {
        server = try PostgresTestServer.dedicated()
        url = try server.freshDatabase()
        admin = try PostgresConnection(url: url)
        try admin.execute("CREATE TABLE w (id BIGINT PRIMARY KEY)")
        try admin.execute("CREATE TABLE standby_probe (id BIGSERIAL PRIMARY KEY)")
    }

    /// Names the standby that never comes, and returns once a commit really waits for it: `pg_reload_conf()` only
    /// signals, and commits wait only after the checkpointer has read the file again, which a busy machine may delay
    /// by any time. A probe commit (its own connection and table, left out of ``waiting()`` and ``backends()``) is
    /// tried until one waits, then canceled; one that commits at once, before the setting took, is simply tried again.
    func loseStandby() throws {
        try admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'gone'")
        _ = try admin.query("SELECT pg_reload_conf() AS r")
        while true {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread { [url] in
                _ = try? Self.probeCommit(url)
                done.signal()
            }
            var pids: [Int64] = []
            while pids.isEmpty, done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
                pids = try admin.query(
                    "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND application_name = ?",
                    [.text(Self.probe)]
                ).compactMap { $0.int("pid") }
            }
            guard !pids.isEmpty else { continue }  // committed at once: the setting had not taken yet
            for pid in pids { _ = try admin.query("SELECT pg_cancel_backend(?::int) AS c", [.integer(pid)]) }
            done.wait()
            return
        }
    }

    /// Names no standby again, and returns once a commit no longer waits: a probe commit made after it returns (the
    /// waiters are released when the checkpointer has read the file again).
    func regainStandby() throws {
        try admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
        _ = try admin.query("SELECT pg_reload_conf() AS r")
        try Self.probeCommit(url)
    }

    /// One commit on a connection of its own to `url`, named ``probe``.
    static func probeCommit(_ url: String) throws {
        _ = try PostgresConnection(url: url, applicationName: Self.probe).run("INSERT INTO standby_probe DEFAULT VALUES", [])
    }

    /// The probe commits' connections' name.
    static let probe = "standby-probe"

    /// The backends waiting for the standby.
    func waiting() throws -> [Int64] {
        try admin.query(
            "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND application_name <> ?", [.text(Self.probe)]
        ).compactMap { $0.int("pid") }
    }

    /// The backends connected to this test's database, but the admin's.
    func backends() throws -> Set<Int64> {
        Set(
            try admin.query(
                """
                SELECT pid FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> ?
                """, [.text(Self.probe)]
            ).compactMap { $0.int("pid") })
    }

    func ids() throws -> [Int64] {
        try admin.query("SELECT id FROM w ORDER BY id").compactMap { $0.int("id") }
    }

    @Test("a canceled wait on a real server is .inDoubt, though committed locally: never a success")
    func canceledWait() async throws {
        try loseStandby()
        defer { try? regainStandby() }
        let outcome = Mutex<Result<Int, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [url] in
            let result = Result { try PostgresConnection(url: url).run("INSERT INTO w (id) VALUES (?)", [.integer(1)]) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        var pids: [Int64] = []
        for _ in 0..<50 where pids.isEmpty {
            usleep(50_000)
            pids = try waiting()
        }
        #expect(pids.count == 1)
        #expect(outcome.withLock { $0 } == nil, "the commit returned while the standby was gone")
        for pid in pids { _ = try admin.query("SELECT pg_cancel_backend(?::int) AS c", [.integer(pid)]) }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect {
            _ = try outcome.withLock { $0 }?.get()
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        #expect(try ids() == [1])
    }

    @Test("a write past the timeout answers .inDoubt in time, uncanceled; reads go on; the standby back, writes do")
    func boundedCommit() async throws {
        let database = try PostgresDatabase(url: url, count: 2, commitTimeout: .seconds(1), logger: Logger(label: "t"))
        defer { database.close() }
        try loseStandby()
        var regained = false
        defer { if !regained { try? regainStandby() } }
        let started = ContinuousClock.now
        await #expect {
            try await database.write { try $0.run("INSERT INTO w (id) VALUES (?)", [.integer(2)]) }
        } throws: { ($0 as? StorageError)?.code == .inDoubt && ($0 as? StorageError)?.isUnavailable == true }
        let waited = ContinuousClock.now - started
        // Not before the timeout; the bound above is only "not for ever" (the wait without a standby has none): the
        // replacement connection is made before the caller resumes; at load 19 the whole took over 3 s once.
        #expect(waited >= .seconds(1) && waited < .seconds(30), "\(waited)")
        #expect(database.replacedConnections == 1)
        #expect(try waiting().count == 1, "the write was canceled")
        // Both connections free again (one replaced): reads answer at once.
        for _ in 0..<4 {
            let count = try await database.read { try $0.query("SELECT count(*) AS n FROM w") }.first?.int("n")
            #expect(count == 0)
        }
        try regainStandby()
        regained = true
        // The abandoned commit completes when the standby condition ends; new writes succeed without a restart.
        _ = try await database.write { try $0.run("INSERT INTO w (id) VALUES (?)", [.integer(3)]) }
        for _ in 0..<20 where try ids() != [2, 3] { usleep(50_000) }
        #expect(try ids() == [2, 3])
    }

    @Test("writes stuck on a lost standby past what the pool replaces never take the last connection: reads answer")
    func readsOutlastStuckWrites() async throws {
        let database = try PostgresDatabase(url: url, count: 3, commitTimeout: .seconds(1), logger: Logger(label: "t"))
        defer { database.close() }
        try loseStandby()
        defer { try? regainStandby() }
        // Waves of stuck writes: the first connections stuck leave the pool, replaced, until three have (as many as it
        // holds); the writes stuck after that stay where they are. Before, they came to hold every connection.
        for wave in 0..<3 {
            await withTaskGroup(of: Void.self) { group in
                for id in 0..<3 {
                    let row = SQLValue.integer(Int64(10 * (wave + 1) + id))
                    group.addTask { _ = try? await database.write { try $0.run("INSERT INTO w (id) VALUES (?)", [row]) } }
                }
            }
        }
        #expect(database.replacedConnections == 3)
        for _ in 0..<4 {
            let count = try await database.read { try $0.query("SELECT count(*) AS n FROM w") }.first?.int("n")
            #expect(count == 0)
        }
        // A blocking read (a worker's: the capability's account read, IMAP's) takes the same connection; before, it
        // queued behind a stuck write with no timeout.
        #expect(try database.readSync { try $0.query("SELECT count(*) AS n FROM w") }.first?.int("n") == 0)
    }

    @Test("a write past the timeout makes the idle connections anew, the one kept for reads among them")
    func idleConnectionsFollow() async throws {
        let database = try PostgresDatabase(url: url, count: 3, commitTimeout: .seconds(1), logger: Logger(label: "t"))
        defer { database.close() }
        let before = try backends()
        #expect(before.count == 3)
        try loseStandby()
        defer { try? regainStandby() }
        await #expect {
            try await database.write { try $0.run("INSERT INTO w (id) VALUES (?)", [.integer(40)]) }
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        // The reconnections come after the caller has its answer; the old connections close once replaced.
        for _ in 0..<250 where try database.reconnectedConnections < 2 || backends().intersection(before).count > 1 {
            usleep(20_000)
        }
        #expect(database.replacedConnections == 1 && database.reconnectedConnections == 2)
        // Of the connections open before, only the stuck write's is left, still waiting for the standby: none that
        // reads stays on a server that may have been replaced.
        #expect(try backends().intersection(before) == Set(waiting()))
        #expect(try backends().count == 4)
    }

    @Test("a read past the timeout answers .unavailable, not .inDoubt, and counts no commit in doubt: it wrote nothing")
    func readPastTimeout() async throws {
        let database = try PostgresDatabase(url: url, count: 1, commitTimeout: .seconds(1), logger: Logger(label: "t"))
        defer { database.close() }
        await #expect {
            try await database.read { _ = try $0.query("SELECT pg_sleep(2) AS s") }
        } throws: {
            ($0 as? StorageError)?.code == .unavailable && "\($0)".contains("did not answer a read within 1 s")
        }
        #expect(database.replacedConnections == 1, "the stuck read's connection left the pool")
        #expect(try await database.read { try $0.query("SELECT 1 AS one") }.first?.int("one") == 1)
        // The pool's own count of doubts: none for the read, one for the same call as a write.
        let doubts = Mutex(0)
        let pool = PostgresPool(
            [try PostgresConnection(url: url)], label: "t", timeout: .seconds(1),
            connect: { [url] in try PostgresConnection(url: url) }, onDoubt: { _, _ in doubts.withLock { $0 += 1 } })
        defer { pool.close() }
        await #expect { try await pool.async(reading: true) { _ = try $0.query("SELECT pg_sleep(2) AS s") } } throws: {
            ($0 as? StorageError)?.code == .unavailable
        }
        #expect(doubts.withLock { $0 } == 0)
        await #expect { try await pool.async { _ = try $0.query("SELECT pg_sleep(2) AS s") } } throws: {
            ($0 as? StorageError)?.code == .inDoubt
        }
        #expect(doubts.withLock { $0 } == 1)
    }

    @Test("a call still queued when the timeout passes answers .unavailable and never runs")
    func queuedCallNeverRuns() async throws {
        let database = try PostgresDatabase(url: url, count: 1, commitTimeout: .seconds(1), logger: Logger(label: "t"))
        defer { database.close() }
        let slow = Task { try await database.write { _ = try $0.query("SELECT pg_sleep(2) AS s") } }
        try await Task.sleep(for: .milliseconds(100))
        await #expect {
            try await database.write { try $0.run("INSERT INTO w (id) VALUES (?)", [.integer(4)]) }
        } throws: { ($0 as? StorageError)?.code == .unavailable }
        await #expect { try await slow.value } throws: { ($0 as? StorageError)?.code == .inDoubt }
        try await Task.sleep(for: .milliseconds(1500))  // the slow call has ended and the old queue drained
        #expect(try ids().isEmpty)
        #expect(try await database.read { try $0.query("SELECT 1 AS one") }.first?.int("one") == 1)
    }
}
