/// The SQL a connection speaks; the rare statement that differs between the two is chosen by it.
public enum SQLDialect: String, Sendable {
    /// SQLite 3 (the embedded default).
    case sqlite
    /// PostgreSQL 15 or later.
    case postgres
}

/// What migrations and stores need of one database connection, on SQLite or on PostgreSQL.
///
/// Statements take `?` placeholders on both (PostgreSQL's connection numbers them), and values are always
/// bound, never interpolated. A connection is not thread-safe: it is confined to one serial queue and
/// handed to closures that run there.
public protocol SQLConnection: AnyObject {
    /// Which SQL this connection speaks.
    var dialect: SQLDialect { get }
    /// Runs one or more statements without parameters or results (schema scripts).
    func execute(_ sql: String) throws
    /// Runs one statement with bound values; returns the number of rows it changed.
    @discardableResult func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int
    /// Runs one statement with bound values; returns every result row.
    func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow]
    /// Runs `body` in a read-write transaction that behaves as if alone on the database; rolls back
    /// when it throws. On PostgreSQL `body` may run again after a serialization failure, so it must do
    /// nothing but database work.
    @discardableResult func transaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` in a read-only transaction that sees one snapshot.
    @discardableResult func readTransaction<T>(_ body: () throws -> T) throws -> T
    /// Rolls back a transaction left open (after a failure), so the connection can be reused.
    func rollbackIfOpen()
}

extension SQLConnection {
    /// Runs `body` holding the database-wide lock `id`, so that processes sharing the database take turns:
    /// PostgreSQL's session advisory lock, taken before any transaction `body` begins (whose snapshot then
    /// follows the previous holder's commit) and released after. On SQLite, one process's single writer, it
    /// just runs `body`.
    public func withDatabaseLock<T>(_ id: Int64, _ body: () throws -> T) throws -> T {
        guard dialect == .postgres else { return try body() }
        try execute("SELECT pg_advisory_lock(\(id))")
        defer { try? execute("SELECT pg_advisory_unlock(\(id))") }
        return try body()
    }

    /// Tells every process listening on `channel` that something changed, when the transaction in progress
    /// commits (PostgreSQL's NOTIFY). Nothing on SQLite, which no other instance shares.
    public func notify(_ channel: String) throws {
        guard dialect == .postgres else { return }
        _ = try query("SELECT pg_notify(?, '')", [.text(channel)])
    }

    /// `run` without bindings.
    @discardableResult public func run(_ sql: String) throws -> Int { try run(sql, []) }
    /// `query` without bindings.
    public func query(_ sql: String) throws -> [SQLRow] { try query(sql, []) }
}

extension SQLConnection {
    /// `begin`, then `body`, then COMMIT; rolls back when `body` or the commit throws (SQLite's transactions;
    /// PostgreSQL's also guard against a connection lost in between).
    /// - Throws: `.misuse` when `alreadyOpen` (transactions do not nest), else what `body`, BEGIN or COMMIT throws.
    public func runTransaction<T>(begin: String, alreadyOpen: Bool, _ body: () throws -> T) throws -> T {
        guard !alreadyOpen else { throw StorageError(.misuse, "a transaction is already open on this connection") }
        try execute(begin)
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            rollbackIfOpen()
            throw error
        }
    }
}
