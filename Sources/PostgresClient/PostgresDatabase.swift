import CoreMetrics
import Logging
import Storage
import Synchronization

/// A PostgreSQL database as the stores see it: a few libpq connections, each confined to a serial queue of
/// its own, every write and every read of more than one statement going to the least busy one (``PostgresPool``,
/// which also bounds how long a call may take), and reads of one statement to a few read-only sessions in pipeline
/// mode (``PostgresPipe``, bounded by the same timeout). Any number of Postern instances can share the database; what must agree across them is decided by the
/// database (unique keys, SERIALIZABLE transactions), never by this process.
public final class PostgresDatabase: SQLDatabase {
    /// PostgreSQL's.
    public var dialect: SQLDialect { .postgres }
    /// Receives debug-level lines about the store, and the commits in doubt at error.
    public let logger: Logger
    private let connections: PostgresPool
    /// The read-only pipelined sessions reads of one statement go to (``read(_:)``).
    private let pipes: [PostgresPipe]
    private let rotation = Atomic<Int>(0)
    private let commitTimeout: Duration?
    /// The SQL of the first statements of bodies whose replay stopped (they run more than one statement): such a body
    /// goes straight to the pool, without a pipe's round trip first. At most ``pastReplayLimit``; past it, a body is
    /// tried on a pipe as before.
    private let pastReplay = Mutex<Set<String>>([])
    static let pastReplayLimit = 64

    /// Connects `count` times to `url` for the pool, and a third as many times (at least once) for the read-only
    /// pipelined sessions that reads of one statement use (``read(_:)``).
    /// - Parameters:
    ///   - commitTimeout: how long `write` and `read` wait for a call (nil: for ever); past it the caller gets
    ///     `.inDoubt` (503) and the connection leaves the pool (``PostgresPool``), or, for a read answered on a pipe,
    ///     `.unavailable` (``PostgresPipe``). The blocking calls never time out.
    /// - Throws: `StorageError` `.unavailable` when the server cannot be reached, `.misuse` for a count below 1.
    public init(url: String, count: Int = 4, commitTimeout: Duration? = .seconds(10), logger: Logger) throws {
        guard count >= 1 else { throw StorageError(.misuse, "a PostgreSQL database needs at least one connection") }
        // The pool's connections first: one that fails frees those made before it (a connection finishes its
        // session when released). A pipe's reader keeps its pipe alive, so the pipes made before one that fails
        // are closed here.
        let pooled = try (0..<count).map { _ in try PostgresConnection(url: url) }
        var pipes: [PostgresPipe] = []
        do {
            for index in 0..<max(1, count / 3) {
                pipes.append(try PostgresPipe(url: url, label: "postern.postgres.pipe.\(index)", timeout: commitTimeout))
            }
        } catch {
            for pipe in pipes { pipe.close() }
            throw error
        }
        self.pipes = pipes
        self.commitTimeout = commitTimeout
        connections = PostgresPool(
            pooled, label: "postern.postgres",
            timeout: commitTimeout, connect: { try PostgresConnection(url: url) },
            onDoubt: { error, reason in Self.report(error, reason: reason, logger: logger) })
        self.logger = logger
        logger.debug("storage opened", metadata: ["backend": "postgres", "connections": "\(count)"])
    }

    /// A database released without ``close()`` closes its pipes: their readers keep them (and their sessions) alive
    /// otherwise, for the process's life. The pool's connections end with the pool. Closing is idempotent.
    deinit {
        for pipe in pipes { pipe.close() }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await connections.async { try body($0) }
    }

    /// A body of one `query` (most reads: an account, a token, a message list) runs its statement on a pipe, sent
    /// from the caller's thread and answered by the pipe's reader, several callers' statements in flight at once; any
    /// other body, or one the pipe declines, runs on the pool as a write does. The body may run twice, the first time
    /// up to its first statement (``PostgresReplay``): it must have no effect but its result.
    /// A body the pipe declines, or whose replay stopped, has what is left of the commit timeout on the pool (not a
    /// second one whole); a body whose replay stopped is remembered by its first statement's SQL and goes straight to
    /// the pool after (``pastReplay``).
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        guard let (sql, bindings) = PostgresReplay.Capture.statement(of: body),
            !pastReplay.withLock({ $0.contains(sql) })
        else { return try await write(body) }
        let started = ContinuousClock.now
        let pipe = pipes[rotation.wrappingAdd(1, ordering: .relaxed).oldValue % pipes.count]
        switch await pipe.query(sql, bindings) {
        case .declined:
            return try await onPool(body, since: started)
        case .timedOut:
            let seconds = commitTimeout?.components.seconds ?? 0
            throw StorageError(.unavailable, "a read was not answered by PostgreSQL within \(seconds) s")
        case .rows(let rows):
            let replay = PostgresReplay.Replay(sql: sql, bindings: bindings, rows: rows)
            let result = Result { try body(replay) }
            guard !replay.stopped else {
                pastReplay.withLock { known in
                    if known.count < Self.pastReplayLimit { known.insert(sql) }
                }
                return try await onPool(body, since: started)
            }
            return try result.get()
        }
    }

    /// Runs a read body on the pool within what is left of the commit timeout since `started`; none left: the read
    /// is `.unavailable`, as one the pipe timed out.
    private func onPool<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T, since started: ContinuousClock.Instant
    ) async throws -> T {
        guard let commitTimeout else { return try await write(body) }
        let left = commitTimeout - (ContinuousClock.now - started)
        guard left > .zero else {
            throw StorageError(
                .unavailable,
                "a read was not answered by PostgreSQL within \(commitTimeout.components.seconds) s")
        }
        return try await connections.async(within: left) { try body($0) }
    }

    public func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try connections.sync(body)
    }

    public func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writeSync(body)
    }

    public func probeWrite(now: Int64) async throws {
        try await write { connection in try Self.probe(connection, now: now) }
    }

    public func close() {
        for pipe in pipes { pipe.close() }
        connections.close()
    }

    /// How many reads the pipes answered (for tests).
    var pipeAnswers: Int { pipes.reduce(0) { $0 + $1.answeredCount } }

    /// How many connections left the pool after a call outlived the commit timeout (for tests).
    var replacedConnections: Int { connections.replacedCount }

    /// Logs a commit in doubt at error (the message names the statement, never a value) and counts it: the caller
    /// answers 503 for a write that may be lost at the next failover or found done later.
    static func report(_ error: StorageError, reason: PostgresPool.DoubtReason, logger: Logger) {
        logger.error(
            "a write was not acknowledged: its commit is in doubt",
            metadata: ["reason": "\(reason.rawValue)", "error": "\(error.message)"])
        Counter(label: "postern_storage_commits_in_doubt_total", dimensions: [("reason", reason.rawValue)]).increment()
    }
}
