import Dispatch
import Testing

@testable import Storage

@Suite("SQLiteConnection")
struct SQLiteConnectionTests {
    @Test("every SQLValue kind round-trips through a bound parameter and a typed read")
    func bindingsRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let samples: [SQLValue] = [
                .null, .integer(0), .integer(Int64.min), .integer(Int64.max), .real(-1.5), .real(1e300),
                .text(""), .text("plain"), .text("ünïcødé ✓ 🚀"), .text("nul\u{0}inside"),
                .blob([]), .blob([0, 1, 2, 255]), .blob(Array(repeating: 0xAB, count: 70_000)),
            ]
            let rows = try database.writeSync { connection in
                try connection.execute("CREATE TABLE sample(position INTEGER PRIMARY KEY, value ANY) STRICT")
                for (position, value) in samples.enumerated() {
                    try connection.run(
                        "INSERT INTO sample(position, value) VALUES (?, ?)", [.integer(Int64(position)), value])
                }
                return try connection.query("SELECT value, typeof(value) AS kind FROM sample ORDER BY position")
            }
            #expect(rows.map { $0["value"] } == samples.map { Optional($0) })
            #expect(rows[0].text("kind") == "null")
            #expect(rows[6].text("kind") == "text")
            #expect(rows[10].text("kind") == "blob")
            #expect(rows[2].int("value") == Int64.min)
            #expect(rows[4].double("VALUE") == -1.5)
            #expect(rows[8].text("value") == "ünïcødé ✓ 🚀")
            #expect(rows[11].blob("value") == [0, 1, 2, 255])
            #expect(rows[1].text("value") == nil)
            #expect(rows[1]["missing"] == nil)

            // Readers see the writer's committed rows.
            let count = try database.readSync { try $0.query("SELECT count(*) AS n FROM sample").first?.int("n") }
            #expect(count == Int64(samples.count))
        }
    }

    @Test("a throwing transaction body rolls back every statement")
    func transactionRollback() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            struct Abort: Error {}
            try database.writeSync { connection in
                try connection.execute("CREATE TABLE item(name TEXT NOT NULL) STRICT")
                try connection.transaction { try connection.run("INSERT INTO item VALUES (?)", ["kept"]) }
                #expect(throws: Abort.self) {
                    try connection.transaction {
                        try connection.run("INSERT INTO item VALUES (?)", ["gone-1"])
                        try connection.run("INSERT INTO item VALUES (?)", ["gone-2"])
                        throw Abort()
                    }
                }
                #expect((connection as! SQLiteConnection).isAutocommit)
                let names = try connection.query("SELECT name FROM item").compactMap { $0.text("name") }
                #expect(names == ["kept"])
            }
        }
    }

    @Test("transactions do not nest, and a failing statement inside one rolls back the earlier ones")
    func nestedTransactionAndStatementFailure() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try database.writeSync { connection in
                try connection.execute("CREATE TABLE item(name TEXT NOT NULL) STRICT")
                let nested = #expect(throws: StorageError.self) {
                    try connection.transaction { try connection.transaction { 1 } }
                }
                #expect(nested?.code == .misuse)
                let failed = #expect(throws: StorageError.self) {
                    try connection.transaction {
                        try connection.run("INSERT INTO item VALUES (?)", ["first"])
                        try connection.run("INSERT INTO item VALUES (?)", [.null])
                    }
                }
                #expect(failed?.code == .constraint)
                #expect(failed?.isUnavailable == false)
                #expect(try connection.query("SELECT count(*) AS n FROM item").first?.int("n") == 0)
            }
        }
    }

    @Test("a UNIQUE or PRIMARY KEY violation is .constraintUnique, not a generic constraint error")
    func uniqueConstraintCode() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try database.writeSync { connection in
                try connection.execute("CREATE TABLE account(id TEXT PRIMARY KEY, email TEXT UNIQUE) STRICT")
                try connection.run("INSERT INTO account VALUES (?, ?)", ["a", "a@example.test"])
                let primary = #expect(throws: StorageError.self) {
                    try connection.run("INSERT INTO account VALUES (?, ?)", ["a", "b@example.test"])
                }
                #expect(primary?.code == .constraintUnique)
                let unique = #expect(throws: StorageError.self) {
                    try connection.run("INSERT INTO account VALUES (?, ?)", ["b", "a@example.test"])
                }
                #expect(unique?.code == .constraintUnique)
                #expect(unique?.isUnavailable == false)
            }
        }
    }

    @Test("misuse is refused: wrong binding count, several statements in run, writes through a reader")
    func misuse() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try database.writeSync { connection in
                try connection.execute("CREATE TABLE t(x INTEGER) STRICT")
                let count = #expect(throws: StorageError.self) { try connection.run("INSERT INTO t VALUES (?)", []) }
                #expect(count?.code == .misuse)
                let script = #expect(throws: StorageError.self) {
                    try connection.run("INSERT INTO t VALUES (1); DELETE FROM t", [])
                }
                #expect(script?.code == .misuse)
                #expect(try connection.query("SELECT count(*) AS n FROM t").first?.int("n") == 0)
                let broken = #expect(throws: StorageError.self) {
                    try connection.run("INSERT INTO t VALUES (1); nonsense", [])
                }
                #expect(broken?.code == .misuse)
                #expect(try connection.query("SELECT count(*) AS n FROM t").first?.int("n") == 0)
                #expect(try connection.run("INSERT INTO t VALUES (?);", [1]) == 1)
                #expect(try connection.run("INSERT INTO t VALUES (?); -- trailing comment\n", [2]) == 1)
            }
            let readOnly = #expect(throws: StorageError.self) {
                try database.readSync { try $0.run("INSERT INTO t VALUES (?)", [2]) }
            }
            #expect(readOnly?.code == .readOnly)
        }
    }

    @Test("open applies WAL, synchronous=FULL, foreign keys and the busy timeout")
    func pragmas() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let settings = try database.writeSync { connection in
                (
                    try connection.query("PRAGMA journal_mode").first?.text("journal_mode"),
                    try connection.query("PRAGMA synchronous").first?.int("synchronous"),
                    try connection.query("PRAGMA foreign_keys").first?.int("foreign_keys"),
                    try connection.query("PRAGMA busy_timeout").first?.values.first
                )
            }
            #expect(settings.0 == "wal")
            #expect(settings.1 == 2)  // FULL
            #expect(settings.2 == 1)
            #expect(settings.3 == .integer(5_000))
            let inMemory = #expect(throws: StorageError.self) {
                try Database.open(path: ":memory:", logger: testLogger)
            }
            #expect(inMemory?.code == .misuse)
        }
    }

    @Test("async write and read run on their queues and return values")
    func asyncAccess() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try await database.write { try $0.execute("CREATE TABLE n(v INTEGER) STRICT") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in 0..<50 {
                    group.addTask {
                        _ = try await database.write {
                            try $0.run("INSERT INTO n VALUES (?)", [.integer(Int64(value))])
                        }
                    }
                }
                try await group.waitForAll()
            }
            let sum = try await database.read { try $0.query("SELECT sum(v) AS s FROM n").first?.int("s") }
            #expect(sum == Int64((0..<50).reduce(0, +)))
        }
    }

    @Test("statements are prepared once per SQL text and reused")
    func statementCache() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try database.writeSync { connection in
                try connection.execute("CREATE TABLE t(x INTEGER) STRICT")
                let before = (connection as! SQLiteConnection).cachedStatementCount
                for value in 0..<10 { try connection.run("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) }
                #expect((connection as! SQLiteConnection).cachedStatementCount == before + 1)
                _ = try connection.query("SELECT x FROM t WHERE x > ?", [5])
                _ = try connection.query("SELECT x FROM t WHERE x > ?", [6])
                #expect((connection as! SQLiteConnection).cachedStatementCount == before + 2)
                // A reused statement starts from fresh bindings and a reset cursor.
                #expect(try connection.query("SELECT x FROM t WHERE x > ?", [7]).compactMap { $0.int("x") } == [8, 9])
            }
        }
    }

    @Test("a write body that leaves a transaction open is rolled back, and the writer stays usable")
    func leftOpenTransaction() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try await database.write { try $0.execute("CREATE TABLE t(x INTEGER) STRICT") }
            try await database.write { connection in
                try connection.execute("BEGIN IMMEDIATE")
                try connection.run("INSERT INTO t VALUES (?)", [1])
            }
            let state = try await database.write { connection in
                ((connection as! SQLiteConnection).isAutocommit, try connection.query("SELECT count(*) AS n FROM t").first?.int("n"))
            }
            #expect(state.0)
            #expect(state.1 == 0)
            try await database.write { connection in
                try connection.transaction { try connection.run("INSERT INTO t VALUES (?)", [2]) }
            }
            #expect(try await database.read { try $0.query("SELECT x FROM t").compactMap { $0.int("x") } } == [2])
        }
    }

    @Test("a slow read on one reader does not hold up reads that another reader can serve")
    func slowReaderIsAvoided() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            // A plain dispatch thread, not a task: it must not wait for the cooperative pool that this
            // test and its neighbours are blocking.
            DispatchQueue.global().async {
                _ = try? database.readSync { _ in
                    started.signal()
                    _ = release.wait(timeout: .now() + 10)
                }
                finished.signal()
            }
            #expect(started.wait(timeout: .now() + 10) == .success)
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<10 {
                #expect(try database.readSync { try $0.query("SELECT 1 AS one").first?.int("one") } == 1)
            }
            let elapsed = clock.now - start
            release.signal()
            #expect(finished.wait(timeout: .now() + 10) == .success)
            // Held up, the reads would wait for the slow one's 10 s: the bound tells the two apart, not how fast.
            #expect(elapsed < .seconds(8))
        }
    }

    @Test("a read transaction on a reader sees one snapshot while the writer commits in between")
    func readSnapshot() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try database.writeSync { connection in
                try connection.execute("CREATE TABLE t(x INTEGER) STRICT")
                try connection.run("INSERT INTO t VALUES (?)", [1])
            }
            let counts = try database.readSync { reader in
                try reader.readTransaction {
                    let before = try reader.query("SELECT count(*) AS n FROM t").first?.int("n")
                    try database.writeSync { try $0.run("INSERT INTO t VALUES (?)", [2]) }
                    let after = try reader.query("SELECT count(*) AS n FROM t").first?.int("n")
                    return (before, after)
                }
            }
            #expect(counts.0 == 1)
            #expect(counts.1 == 1)
            #expect(try database.readSync { try $0.query("SELECT count(*) AS n FROM t").first?.int("n") } == 2)
        }
    }
}
