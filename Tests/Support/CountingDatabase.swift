import Logging
import Storage
import Synchronization

/// A database that counts what the stores ask of it, on either backend: calls (`read`, `write` and their blocking
/// forms), statements (`execute`, `run`, `query`) and transactions. For the tests that pin what a request costs, so
/// that a second lookup or a transaction around a single read cannot creep in unseen. On PostgreSQL a statement
/// outside a transaction is one round trip once its connection has prepared it, and a transaction adds two (BEGIN,
/// COMMIT): `PostgresConnectionTests` pins that part.
public final class CountingDatabase: SQLDatabase {
    /// What was asked so far.
    public struct Counts: Equatable, Sendable, CustomStringConvertible {
        /// `read`, `write`, `readSync`, `writeSync`: each a hop to a connection's queue.
        public var calls = 0
        /// Statements run, inside transactions or not.
        public var statements = 0
        /// Transactions begun (`transaction`, `readTransaction`).
        public var transactions = 0

        /// Counts with the given figures.
        public init(calls: Int = 0, statements: Int = 0, transactions: Int = 0) {
            self.calls = calls
            self.statements = statements
            self.transactions = transactions
        }

        public var description: String {
            "\(calls) calls, \(statements) statements, \(transactions) transactions"
        }
    }

    private let inner: any SQLDatabase
    private let counted = Mutex(Counts())
    /// Sees each statement's SQL before it goes to `inner`, and may throw instead (a test's injected failure).
    let beforeStatement: @Sendable (String) throws -> Void

    /// Counts what goes to `inner`; `beforeStatement` sees each statement first and may fail it.
    public init(_ inner: any SQLDatabase, beforeStatement: @escaping @Sendable (String) throws -> Void = { _ in }) {
        self.inner = inner
        self.beforeStatement = beforeStatement
    }

    /// The counts so far.
    public var counts: Counts { counted.withLock { $0 } }

    /// What `body` asked of the database.
    public func counting(_ body: () async throws -> Void) async rethrows -> Counts {
        let before = counts
        try await body()
        let after = counts
        return Counts(
            calls: after.calls - before.calls, statements: after.statements - before.statements,
            transactions: after.transactions - before.transactions)
    }

    fileprivate func add(_ change: (inout Counts) -> Void) {
        counted.withLock { change(&$0) }
    }

    public var dialect: SQLDialect { inner.dialect }
    public var logger: Logger { inner.logger }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        add { $0.calls += 1 }
        return try await inner.write { try body(CountingConnection($0, self)) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        add { $0.calls += 1 }
        return try await inner.read { try body(CountingConnection($0, self)) }
    }

    public func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        add { $0.calls += 1 }
        return try inner.writeSync { try body(CountingConnection($0, self)) }
    }

    public func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        add { $0.calls += 1 }
        return try inner.readSync { try body(CountingConnection($0, self)) }
    }

    public func probeWrite(now: Int64) async throws {
        add { $0.calls += 1 }
        try await inner.probeWrite(now: now)
    }

    public func close() {
        inner.close()
    }
}

/// A connection that counts its statements and transactions into its `CountingDatabase`; confined, as the one it
/// wraps, to that connection's queue for the length of one call.
private final class CountingConnection: SQLConnection {
    let inner: any SQLConnection
    let database: CountingDatabase

    init(_ inner: any SQLConnection, _ database: CountingDatabase) {
        self.inner = inner
        self.database = database
    }

    var dialect: SQLDialect { inner.dialect }

    func execute(_ sql: String) throws {
        try database.beforeStatement(sql)
        database.add { $0.statements += 1 }
        try inner.execute(sql)
    }

    func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        try database.beforeStatement(sql)
        database.add { $0.statements += 1 }
        return try inner.run(sql, bindings)
    }

    func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow] {
        try database.beforeStatement(sql)
        database.add { $0.statements += 1 }
        return try inner.query(sql, bindings)
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        database.add { $0.transactions += 1 }
        return try inner.transaction(body)
    }

    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        database.add { $0.transactions += 1 }
        return try inner.readTransaction(body)
    }

    func rollbackIfOpen() {
        inner.rollbackIfOpen()
    }
}
