import Logging
import OutboundQueue
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// A completion that keeps conflicting with other transactions (PostgreSQL's SERIALIZABLE retries spent: `.busy`) is
/// recorded once it gets through, not left to its lease: left, the delivered message would be sent again when the
/// lease ran out (seen in the cluster's outbound test, two instances completing one account's messages at once).
@Suite("Outbound completion under conflicts", .timeLimit(.minutes(1)))
struct OutboundCompletionConflictTests {
    @Test(
        "a delivery whose recording conflicts three times is recorded once, and sent once",
        arguments: StorageBackend.allCases)
    func conflictingCompletion(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let database = ConflictingDatabase(test.database, conflicts: 3, on: "SET status = ?")
        let queue = OutboundQueue(database: database, configuration: OutboundQueueConfiguration(), jitter: { 0 })
        let transport = RecordingTransport()
        let running = OutboundDispatcherTests.running(queue, transport, clock: { OutboundDispatcherTests.now })
        try await OutboundDispatcherTests.record(queue, "S1", ["ok@one.example"], at: OutboundDispatcherTests.now)
        try await waitUntil("the delivery recorded") {
            try await queue.submissions(accountID: "A1", ids: ["S1"]).first?.recipients.first?.status.name
                == "delivered"
        }
        running.cancel()
        await running.value
        #expect(database.conflictsLeft == 0, "the completion met every conflict")
        #expect(transport.batches.map(\.recipients) == [["ok@one.example"]], "sent once")
    }
}

/// A database whose statements containing `marker` throw `.busy` (as PostgreSQL's transaction does once its retries
/// are spent; the transaction is rolled back) the first `conflicts` times.
final class ConflictingDatabase: SQLDatabase {
    private let inner: any SQLDatabase
    private let marker: String
    private let left: Mutex<Int>

    init(_ inner: any SQLDatabase, conflicts: Int, on marker: String) {
        self.inner = inner
        self.marker = marker
        left = Mutex(conflicts)
    }

    var conflictsLeft: Int { left.withLock { $0 } }

    /// Throws the conflict when `sql` is the marked statement and conflicts are left.
    fileprivate func check(_ sql: String) throws {
        let conflict = sql.contains(marker) && left.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if conflict { throw StorageError(.busy, "transaction kept conflicting with others (test)") }
    }

    var dialect: SQLDialect { inner.dialect }
    var logger: Logger { inner.logger }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await inner.write { try body(ConflictingConnection($0, self)) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await inner.read { try body(ConflictingConnection($0, self)) }
    }

    func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try inner.writeSync { try body(ConflictingConnection($0, self)) }
    }

    func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try inner.readSync { try body(ConflictingConnection($0, self)) }
    }

    func probeWrite(now: Int64) async throws { try await inner.probeWrite(now: now) }
    func close() { inner.close() }
}

private final class ConflictingConnection: SQLConnection {
    let inner: any SQLConnection
    let database: ConflictingDatabase

    init(_ inner: any SQLConnection, _ database: ConflictingDatabase) {
        self.inner = inner
        self.database = database
    }

    var dialect: SQLDialect { inner.dialect }

    func execute(_ sql: String) throws {
        try database.check(sql)
        try inner.execute(sql)
    }

    func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        try database.check(sql)
        return try inner.run(sql, bindings)
    }

    func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow] {
        try database.check(sql)
        return try inner.query(sql, bindings)
    }

    func transaction<T>(_ body: () throws -> T) throws -> T { try inner.transaction(body) }
    func readTransaction<T>(_ body: () throws -> T) throws -> T { try inner.readTransaction(body) }
    func rollbackIfOpen() { inner.rollbackIfOpen() }
}
