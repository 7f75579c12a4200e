import CSQLite

/// One SQLite database connection with a cache of prepared statements keyed by SQL text.
///
/// A connection is not thread-safe. `Database` confines each connection to one serial queue and
/// hands it to closures that run on that queue; never keep a connection beyond such a closure.
///
/// Values are always bound as parameters (`?`), never interpolated into SQL text.
public final class SQLiteConnection: SQLConnection {
    /// SQLite's.
    public var dialect: SQLDialect { .sqlite }
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The writer runs a batch of writes in one transaction (``BatchedWriter``): a write's `transaction` is then a
    /// savepoint of it.
    var batching = false
    /// A write's savepoint is open in the batch.
    private var savepointOpen = false
    private static let statementCacheLimit = 128

    /// How a connection is opened.
    enum Mode {
        /// Read-write, created when missing, WAL with synchronous=FULL and foreign keys on.
        case writer
        /// Read-only, for a database whose writer already set WAL mode.
        case reader
    }

    /// Opens a connection and applies Postern's settings.
    /// - Throws: `StorageError` when SQLite cannot open or configure the file.
    init(path: String, mode: Mode, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        var pointer: OpaquePointer?
        let flags: Int32 =
            switch mode {
            case .writer: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            case .reader: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            }
        let result = sqlite3_open_v2(path, &pointer, flags, nil)
        guard let pointer else { throw StorageError(resultCode: result, message: "cannot allocate a connection") }
        guard result == SQLITE_OK else {
            let error = SQLiteConnection.error(result, pointer)
            sqlite3_close_v2(pointer)
            throw error
        }
        self.handle = pointer
        sqlite3_extended_result_codes(pointer, 1)
        sqlite3_busy_timeout(pointer, busyTimeoutMilliseconds)
        switch mode {
        case .writer:
            let journal = try query("PRAGMA journal_mode = WAL").first?.text("journal_mode")
            guard journal?.lowercased() == "wal" else {
                throw StorageError(
                    .misuse,
                    "journal_mode WAL refused (got \(journal ?? "nothing")); in-memory databases are not supported")
            }
            try execute("PRAGMA synchronous = FULL")
            try execute("PRAGMA foreign_keys = ON")
        case .reader:
            try execute("PRAGMA foreign_keys = ON")
        }
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements without parameters or results (schema scripts, pragmas).
    /// - Throws: `StorageError` from the first statement that fails.
    /// - Warning: never build `sql` from untrusted values; use `run(_:_:)` with bindings instead.
    public func execute(_ sql: String) throws {
        var messagePointer: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &messagePointer)
        defer { sqlite3_free(messagePointer) }
        guard result == SQLITE_OK else {
            let message = messagePointer.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            throw StorageError(resultCode: sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Runs one statement with bound values and returns the number of rows it changed.
    /// - Parameters:
    ///   - sql: exactly one statement with `?` placeholders.
    ///   - bindings: one value per placeholder, in order.
    /// - Throws: `StorageError`; `.constraintUnique` when a UNIQUE or PRIMARY KEY constraint refuses it.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int {
        try withStatement(sql, bindings) { statement in
            while try step(statement) {}
        }
        return Int(sqlite3_changes(handle))
    }

    /// Runs one statement with bound values and returns every result row.
    /// - Throws: `StorageError` when preparing, binding or stepping fails.
    public func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [SQLRow] {
        try withStatement(sql, bindings) { statement in
            var rows: [SQLRow] = []
            while try step(statement) { rows.append(statement.currentRow()) }
            return rows
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`; rolls back when `body` or the commit throws.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock up front, so a transaction never fails half-way with
    /// SQLITE_BUSY on its first write.
    /// - Throws: what `body` throws, a `StorageError` from BEGIN/COMMIT, or `.misuse` when a
    ///   transaction is already open on this connection (transactions do not nest).
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` inside a deferred `BEGIN ... COMMIT`, so several SELECTs see one snapshot.
    ///
    /// Use it on reader connections: unlike `transaction`, it never asks for the write lock.
    /// - Throws: what `body` throws, a `StorageError` from BEGIN/COMMIT, or `.misuse` when a
    ///   transaction is already open on this connection.
    @discardableResult
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(begin: "BEGIN DEFERRED", body)
    }

    private func inTransaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        guard batching else { return try runTransaction(begin: begin, alreadyOpen: !isAutocommit, body) }
        // In a batch (``BatchedWriter``): a savepoint of the batch's transaction, rolled back alone.
        guard !savepointOpen else { throw StorageError(.misuse, "a transaction is already open on this connection") }
        try execute("SAVEPOINT batched_write")
        savepointOpen = true
        defer { savepointOpen = false }
        do {
            let value = try body()
            try execute("RELEASE batched_write")
            return value
        } catch {
            // Unless SQLite rolled the whole batch back already (the writer sees it and answers for it).
            if !isAutocommit { _ = sqlite3_exec(handle, "ROLLBACK TO batched_write; RELEASE batched_write", nil, nil, nil) }
            throw error
        }
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True when no transaction is open on this connection.
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// How many prepared statements are cached (for tests of the cache).
    var cachedStatementCount: Int { statements.count }

    /// Rolls back an open transaction; SQLite may already have rolled back after SQLITE_FULL or IOERR.
    public func rollbackIfOpen() {
        if !isAutocommit { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    // MARK: - Statements

    private func withStatement<T>(_ sql: String, _ bindings: [SQLValue], _ body: (SQLiteStatement) throws -> T) throws
        -> T
    {
        let statement = try prepared(sql)
        // Reset releases the statement's read snapshot and locks even when stepping stopped early.
        defer {
            sqlite3_reset(statement.handle)
            sqlite3_clear_bindings(statement.handle)
        }
        try statement.bind(bindings, connection: handle)
        return try body(statement)
    }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        var pointer: OpaquePointer?
        var trailingStatement = false
        let result = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let prepared = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, &tail)
            // SQLite ignores everything after the first statement; a second statement there would be
            // silently dropped, so refuse it. Whitespace and comments prepare to no statement at all.
            if prepared == SQLITE_OK, let tail, tail.pointee != 0 {
                var extra: OpaquePointer?
                let extraResult = sqlite3_prepare_v2(handle, tail, -1, &extra, nil)
                trailingStatement = extraResult != SQLITE_OK || extra != nil
                sqlite3_finalize(extra)
            }
            return prepared
        }
        if trailingStatement {
            sqlite3_finalize(pointer)
            throw StorageError(.misuse, "run/query take exactly one statement; use execute for scripts")
        }
        guard result == SQLITE_OK else { throw SQLiteConnection.error(result, handle) }
        guard let pointer else { throw StorageError(.misuse, "empty SQL statement") }
        let statement = SQLiteStatement(handle: pointer)
        if statements.count >= SQLiteConnection.statementCacheLimit { statements.removeAll() }
        statements[sql] = statement
        return statement
    }

    /// Steps once: true when a row is available, false when done.
    private func step(_ statement: SQLiteStatement) throws -> Bool {
        switch sqlite3_step(statement.handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let result: throw SQLiteConnection.error(result, handle)
        }
    }

    /// A `StorageError` for a failed call, preferring the connection's extended code.
    static func error(_ result: Int32, _ connection: OpaquePointer) -> StorageError {
        let extended = sqlite3_extended_errcode(connection)
        let code = (extended & 0xff) == (result & 0xff) ? extended : result
        return StorageError(resultCode: code, message: String(cString: sqlite3_errmsg(connection)))
    }
}
