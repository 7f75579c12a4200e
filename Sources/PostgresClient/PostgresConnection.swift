import CLibPQ
import Glibc
import Storage

/// One PostgreSQL connection through libpq, speaking the same `SQLConnection` as SQLite's.
///
/// Statements take `?` placeholders (numbered here, see `PostgresPlaceholders`) and are prepared once
/// per connection, keyed by their text and the kinds of the values bound. Values travel as text, bytes
/// as binary; results come back as text and are read by column type (integers, booleans as 0/1,
/// floating point, numeric as an integer when it has no fraction, bytea as bytes, the rest as text).
///
/// A lost connection (the server restarted, the network broke) fails the call in progress with
/// `.unavailable` and is re-established by the next call; a transaction in progress is lost with it and
/// never half-applied. Not thread-safe: confine it to one serial queue.
public final class PostgresConnection: SQLConnection {
    /// PostgreSQL's.
    public var dialect: SQLDialect { .postgres }
    private let handle: OpaquePointer
    private var statements: [StatementKey: Prepared] = [:]
    private var preparedCount = 0
    /// The calls that waited for the server's answer (a statement, a prepare, BEGIN, COMMIT...): round trips, for the
    /// tests that pin how many a read costs. The non-blocking look for a closed connection (`receivedWhileIdle`) sends
    /// nothing and is not one.
    private(set) var roundTrips = 0
    /// Between a transaction's BEGIN and its end.
    private var transactionOpen = false
    /// The session must be replaced before the next call (it reached a read-only server).
    private var mustReconnect = false
    /// What the server's notices said; installed on `handle`, which it outlives (`deinit` finishes `handle` first).
    private let notices = PostgresNotice.Receiver()
    /// The first statement of the transaction in progress after BEGIN: what a commit in doubt is logged as.
    private var transactionPurpose: String?
    /// Whether a write must find the server waiting for a synchronous standby (``confirmSynchronousStandby(after:)``).
    private let requireSynchronousStandby: Bool
    /// The transaction in progress ran a statement that may write (anything but a SELECT).
    private var transactionWrote = false
    /// Why the last `.inDoubt` this connection threw is in doubt; taken by the pool that counts it.
    private var doubt: CommitDoubtReason?
    private static let statementCacheLimit = 256

    private typealias StatementKey = PostgresStatementKey
    private typealias Prepared = PostgresPreparedStatement

    /// Connects to `url` (`postgres://user:password@host:port/database?sslmode=...`, or any libpq
    /// connection string, several hosts included: see ``PostgresConnectionString``). Unless the URL says otherwise, a
    /// connection attempt gives up after 5 s (per host). A server that does not accept writes (a standby, or
    /// `default_transaction_read_only` on) is not kept: the stores write on every connection.
    /// - Parameter requireSynchronousStandby: every committed write is followed by a look at the session's
    ///   `synchronous_standby_names` and `synchronous_commit`, and fails `.inDoubt` when the commit cannot have waited
    ///   for a synchronous standby (``confirmSynchronousStandby(after:)``).
    /// - Throws: `StorageError` `.unavailable` naming libpq's reason (never the password), or saying the server
    ///   reached is read-only.
    public init(url: String, applicationName: String = "postern", requireSynchronousStandby: Bool = false) throws {
        self.requireSynchronousStandby = requireSynchronousStandby
        handle = try Self.connect(url: url, applicationName: applicationName)
        notices.install(on: handle)  // kept by libpq across PQreset
    }

    /// A blocking connection to `url` that accepts writes (this type's and ``PostgresLoopConnection``'s rule).
    /// - Throws: `StorageError` `.unavailable` naming libpq's reason (never the password), or saying the server reached
    ///   is read-only.
    static func connect(url: String, applicationName: String) throws -> OpaquePointer {
        let keywords = ["connect_timeout", "application_name", "client_encoding", "dbname"]
        let values = ["5", applicationName, "UTF8", url]
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                // Later keywords override earlier ones; the URL, expanded from dbname, comes last.
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else { throw StorageError(.unavailable, "libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw StorageError(.unavailable, "cannot connect to PostgreSQL: \(reason)")
        }
        guard !Self.isReadOnly(connection) else {
            PQfinish(connection)
            throw Self.landedReadOnly
        }
        return connection
    }

    deinit {
        PQfinish(handle)
    }

    // MARK: - SQLConnection

    public func execute(_ sql: String) throws {
        try reconnectIfLost()
        noteStatement(sql)
        roundTrips += 1
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
        try confirmSynchronousStandby(after: sql)
    }

    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        try withResult(sql, bindings) { result, _ in
            Int(String(cString: PQcmdTuples(result))) ?? 0
        }
    }

    public func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow] {
        try withResult(sql, bindings) { result, statement in
            let known = statement.columns.flatMap { $0.count == Int(PQnfields(result)) ? $0 : nil }
            let columns = known ?? PostgresResult.columns(result)
            statement.columns = columns
            return PostgresResult.rows(result, columns: columns)
        }
    }

    /// Runs `body` in a SERIALIZABLE transaction, so it behaves as it does on SQLite's single writer.
    /// After a serialization failure or deadlock (SQLSTATE 40001, 40P01) `body` runs again after a random
    /// pause that doubles each time (up to 1, 2, 4 ... 64 ms), at most ``transactionAttempts`` times in
    /// all; then `.busy` is thrown.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try inTransaction(begin: "BEGIN ISOLATION LEVEL SERIALIZABLE", body)
            } catch let conflict as PostgresRetry {
                guard attempt < Self.transactionAttempts else {
                    throw StorageError(.busy, "transaction kept conflicting with others: \(conflict.message)")
                }
                usleep(UInt32.random(in: 0...(1000 << UInt32(min(attempt, 6)))))
                attempt += 1
            }
        }
    }

    /// How many times a conflicting transaction is tried before `.busy`.
    public static let transactionAttempts = 12

    @discardableResult
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        do {
            return try inTransaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        } catch let error as PostgresRetry {
            throw StorageError(.busy, error.message)
        }
    }

    public func rollbackIfOpen() {
        guard isInTransaction else { return }
        roundTrips += 1
        PQclear(PQexec(handle, "ROLLBACK"))
    }

    /// Waits up to `milliseconds` for notifications on the channels this connection listens to
    /// (`LISTEN channel` through ``execute(_:)``) and returns the payloads of those that arrived.
    /// - Throws: `StorageError` `.unavailable` when the connection is lost (it is not re-established here).
    func waitForNotifications(milliseconds: Int32) throws -> [String] {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0, PQstatus(handle) == CONNECTION_OK else {
            throw StorageError(.unavailable, "the listening connection to PostgreSQL is closed")
        }
        if poll(&descriptor, 1, milliseconds) < 0 && errno != EINTR {
            throw StorageError(.unavailable, "poll on the listening connection failed")
        }
        guard PQconsumeInput(handle) != 0, PQstatus(handle) == CONNECTION_OK else {
            throw StorageError(.unavailable, "the listening connection to PostgreSQL was lost: \(Self.message(PQerrorMessage(handle)))")
        }
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(notification.pointee.extra.map { String(cString: $0) } ?? "")
            PQfreemem(notification)
        }
        return payloads
    }

    /// How many statements are prepared on this connection (for tests of the cache).
    var preparedStatementCount: Int { statements.count }

    // MARK: - Statements

    /// `runTransaction`, with the connection checked just before BEGIN and never replaced from BEGIN to the
    /// end (`reconnectIfLost` throws instead): the rest of the body would run outside the transaction on a new
    /// connection, and the COMMIT would succeed with nothing to commit.
    private func inTransaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        guard !transactionOpen else { throw StorageError(.misuse, "a transaction is already open on this connection") }
        try reconnectIfLost()
        transactionOpen = true
        transactionWrote = false
        defer {
            transactionOpen = false
            transactionPurpose = nil
        }
        return try runTransaction(begin: begin, alreadyOpen: isInTransaction, body)
    }

    private var isInTransaction: Bool {
        PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) != PQTRANS_IDLE
    }

    /// Runs a prepared statement and hands its result to `body`.
    private func withResult<T>(
        _ sql: String, _ bindings: [SQLValue], _ body: (OpaquePointer, Prepared) throws -> T
    ) throws -> T {
        try reconnectIfLost()
        noteStatement(sql)
        let statement = try prepared(sql, bindings)
        guard statement.parameterCount == bindings.count else {
            throw StorageError(
                .misuse, "statement has \(statement.parameterCount) placeholders but \(bindings.count) values were bound")
        }
        roundTrips += 1
        let result = PostgresParameters.withEncoded(bindings) { values, lengths, formats in
            PQexecPrepared(handle, statement.name, Int32(bindings.count), values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result, sql)
        guard let result else { throw StorageError(.unavailable, "no result from PostgreSQL") }
        try confirmSynchronousStandby(after: sql)
        return try body(result, statement)
    }

    private func prepared(_ sql: String, _ bindings: [SQLValue]) throws -> Prepared {
        let types = bindings.map(PostgresParameters.typeOID)
        let key = StatementKey(sql: sql, types: types)
        if let cached = statements[key] { return cached }
        let (numbered, count) = PostgresPlaceholders.numbered(sql)
        if statements.count >= Self.statementCacheLimit {
            roundTrips += 1
            PQclear(PQexec(handle, "DEALLOCATE ALL"))
            statements.removeAll()
        }
        preparedCount += 1
        let name = "p\(preparedCount)"
        roundTrips += 1
        let result = types.withUnsafeBufferPointer { typePointer in
            PQprepare(handle, name, numbered, Int32(count), count == types.count ? typePointer.baseAddress : nil)
        }
        defer { PQclear(result) }
        try check(result, sql)
        let statement = Prepared(name: name, parameterCount: count)
        statements[key] = statement
        return statement
    }

    /// Re-establishes a lost connection before a call; its prepared statements went with it. A connection
    /// the server closed while it was idle (a restart) is noticed here, by reading what is pending on it
    /// (`PQconsumeInput`: one non-blocking read), so the call goes out on a new one instead of failing.
    ///
    /// Inside a transaction nothing is read: the connection was probed just before BEGIN, and a loss from there on
    /// fails the statement itself (`check`), never a reconnection that would run the rest outside the transaction.
    private func reconnectIfLost() throws {
        if transactionOpen {
            guard PQstatus(handle) == CONNECTION_OK else {
                throw StorageError(
                    .unavailable, "connection to PostgreSQL lost in a transaction; none of it was committed")
            }
            return
        }
        guard mustReconnect || PQstatus(handle) != CONNECTION_OK || receivedWhileIdle() else { return }
        statements.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw StorageError(.unavailable, "PostgreSQL is unreachable: \(Self.message(PQerrorMessage(handle)))")
        }
        // A multi-host string with target_session_attrs=read-write never lands on a standby; a single host (or a
        // balancer in front of several) may, after a failover. Such a session is dropped, and the next call tries again.
        mustReconnect = Self.isReadOnly(handle)
        if mustReconnect { throw Self.landedReadOnly }
    }

    /// Whether the server the session reached refuses writes: PostgreSQL 14 and later report both parameters when a
    /// session starts (a standby is `in_hot_standby`; a primary may be read-only by `default_transaction_read_only`).
    private static func isReadOnly(_ connection: OpaquePointer) -> Bool {
        func on(_ name: String) -> Bool { PQparameterStatus(connection, name).map { String(cString: $0) } == "on" }
        return on("in_hot_standby") || on("default_transaction_read_only")
    }

    private static let landedReadOnly = StorageError(
        .unavailable, "the PostgreSQL server reached is read-only (a standby?); the connection is dropped and retried")

    /// Whether the server closed the connection (or said anything) since the last call: an idle connection
    /// hears nothing unless the server is terminating it, which sends its FATAL message and then ends the
    /// stream. One `poll` that does not wait tells whether anything is pending (on a live idle connection, nothing:
    /// one system call per statement). When something is, libpq reads the message on one `PQconsumeInput` and
    /// notices the end on the next, so it is asked twice.
    private func receivedWhileIdle() -> Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { return true }
        var ready: Int32
        repeat { ready = poll(&descriptor, 1, 0) } while ready < 0 && errno == EINTR
        guard ready != 0 else { return false }
        guard PQconsumeInput(handle) != 0, PQconsumeInput(handle) != 0, PQstatus(handle) == CONNECTION_OK else {
            return true
        }
        var heard = false
        while PQisBusy(handle) == 0, let pending = PQgetResult(handle) {
            heard = true
            PQclear(pending)
        }
        return heard
    }

    /// Forgets what earlier notices said (a ROLLBACK's, say) and remembers a transaction's first statement.
    private func noteStatement(_ sql: String) {
        _ = notices.takeInDoubt()
        if transactionOpen && transactionPurpose == nil && !sql.hasPrefix("BEGIN") {
            transactionPurpose = Self.purpose(sql)
        }
        if transactionOpen && !sql.hasPrefix("BEGIN") && Self.mayWrite(sql) { transactionWrote = true }
    }

    /// Whether a statement may write: anything but a SELECT (and the transaction's own COMMIT and ROLLBACK).
    static func mayWrite(_ sql: String) -> Bool {
        let head = sql.drop(while: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }).prefix(8).uppercased()
        return !(head.hasPrefix("SELECT") || head.hasPrefix("COMMIT") || head.hasPrefix("ROLLBACK"))
    }

    /// With `requireSynchronousStandby`, after a commit that wrote (a write transaction's COMMIT, or a write outside
    /// a transaction): asks the session whether that commit waited for a synchronous standby, and throws `.inDoubt`
    /// when it cannot have (`synchronous_standby_names` empty, or `synchronous_commit` `off` or `local`). The look comes
    /// after the commit, on the same session, so it sees a configuration reload that reached the server before the
    /// commit ended: the postmaster signals the backends before the checkpointer, which is what tells committing
    /// backends that no standby is to be waited for, and a backend applies a reload before its next statement.
    ///
    /// Why: a manager may reload a primary with no synchronous standby for a moment (Patroni #2841: a restarted
    /// Patroni first writes `synchronous_standby_names` empty, then demotes the primary it finds, whose commits in that
    /// gap are rewound away). A client reaching that primary directly (a multi-host URL) would otherwise be told such a
    /// commit succeeded. docs/postgres.md, Patroni.
    private func confirmSynchronousStandby(after sql: String) throws {
        guard requireSynchronousStandby else { return }
        guard sql == "COMMIT" ? transactionWrote : !transactionOpen && Self.mayWrite(sql) else { return }
        roundTrips += 1
        let result = PQexec(
            handle, "SELECT current_setting('synchronous_standby_names'), current_setting('synchronous_commit')")
        defer { PQclear(result) }
        let statement = sql == "COMMIT" ? transactionPurpose ?? sql : Self.purpose(sql)
        guard let result, PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1, PQnfields(result) == 2 else {
            doubt = .noSynchronousStandby
            throw StorageError(
                .inDoubt, "commit in doubt: \"\(statement)\" committed, but whether it waited for a synchronous "
                    + "standby could not be asked")
        }
        let names = String(cString: PQgetvalue(result, 0, 0))
        let noStandby = names.allSatisfy { $0 == " " || $0 == "\t" }
        let mode = String(cString: PQgetvalue(result, 0, 1))
        guard noStandby || mode == "off" || mode == "local" else { return }
        doubt = .noSynchronousStandby
        throw StorageError(
            .inDoubt,
            "commit in doubt: PostgreSQL committed \"\(statement)\" without waiting for a synchronous standby "
                + "(synchronous_standby_names \(noStandby ? "empty" : "set"), synchronous_commit \(mode)), and "
                + "POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY is on")
    }

    /// Why the last `.inDoubt` thrown here was in doubt (nil when none was), forgotten once taken.
    func takeDoubtReason() -> CommitDoubtReason? {
        defer { doubt = nil }
        return doubt
    }

    /// A statement as a log names it: its first 80 characters on one line (statements bind their values, so no
    /// value is ever in the text).
    static func purpose(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
        return words.count > 80 ? String(words.prefix(80)) + "..." : words
    }

    /// Throws for a failed result: the error classified by its SQLSTATE, `.unavailable` when the
    /// connection itself failed, `PostgresRetry` for a conflict the transaction may be retried after; and for a
    /// successful one whose notices said its commit is in doubt (``PostgresNotice``), `.inDoubt` naming the statement
    /// (a transaction's first one for its COMMIT).
    private func check(_ result: OpaquePointer?, _ sql: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        if notices.takeInDoubt() {
            doubt = .replicationCanceled
            let statement = sql == "COMMIT" ? transactionPurpose ?? sql : Self.purpose(sql)
            throw StorageError(
                .inDoubt,
                "commit in doubt: PostgreSQL committed \"\(statement)\" locally but canceled the wait for the "
                    + "synchronous standby, which may not have it")
        }
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            break
        }
        if PQstatus(handle) != CONNECTION_OK {
            statements.removeAll()
            throw StorageError(.unavailable, "connection to PostgreSQL lost: \(Self.message(PQerrorMessage(handle)))")
        }
        let (sqlState, message) = Self.errorFields(result, handle)
        if sqlState == "40001" || sqlState == "40P01" { throw PostgresRetry(message: message) }
        throw PostgresErrors.storageError(sqlState: sqlState, message: message)
    }

    /// A failed result's SQLSTATE ("" when none) and message (the connection's when the result has none).
    static func errorFields(_ result: OpaquePointer?, _ handle: OpaquePointer) -> (sqlState: String, message: String) {
        let sqlState = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        let message =
            result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
            ?? Self.message(PQerrorMessage(handle))
        return (sqlState, message)
    }

    static func message(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "no reason given" }
        return String(cString: pointer).trimmingTrailingNewlines()
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// A serialization failure or deadlock: the transaction may succeed if run again.
struct PostgresRetry: Error {
    let message: String
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
