import CoreMetrics
import Logging
import Storage

/// A PostgreSQL database as the stores see it: a few libpq connections, each confined to a serial queue of
/// its own, every read and write going to the least busy one (``PostgresPool``, which also bounds how long a call
/// may take). Any number of Postern instances can share the database; what must agree across them is decided by the
/// database (unique keys, SERIALIZABLE transactions), never by this process.
public final class PostgresDatabase: SQLDatabase {
    /// PostgreSQL's.
    public var dialect: SQLDialect { .postgres }
    /// Receives debug-level lines about the store, and the commits in doubt at error.
    public let logger: Logger
    private let connections: PostgresPool
    /// Where the listeners connect.
    private let url: String
    /// Each event loop's own read connections, and how to find the calling thread's loop; nil: loop reads are off.
    private let loopReads: (readers: PostgresLoopReaders, reactor: @Sendable () -> (any DescriptorReactor)?)?
    /// Raised by the pool when a write's outcome is in doubt; the loops' connections follow it as the pool's do.
    let primaryDoubt: PostgresPrimaryDoubt

    /// Connects `count` times to `url`.
    /// - Parameters:
    ///   - commitTimeout: how long `write` and `read` wait for a call (nil: for ever); past it the caller gets
    ///     `.inDoubt` (503; a read, which has nothing in doubt, `.unavailable`) and the connection leaves the pool
    ///     (``PostgresPool``). The blocking calls never time out.
    ///   - requireSynchronousStandby: a committed write that did not wait for a synchronous standby fails `.inDoubt`
    ///     (``PostgresConnection/init(url:applicationName:requireSynchronousStandby:)``).
    ///   - loopReactor: the calling thread's event loop, nil off one; given, the loops each read on connections of their
    ///     own (``LoopReading``, ``PostgresLoopReaders``: `loopConnections` each, opened on a loop's first read).
    /// - Throws: `StorageError` `.unavailable` when the server cannot be reached, `.misuse` for a count below 1.
    public init(
        url: String, count: Int = 4, commitTimeout: Duration? = .seconds(10), requireSynchronousStandby: Bool = false,
        loopReactor: (@Sendable () -> (any DescriptorReactor)?)? = nil, loopConnections: Int = 2, logger: Logger
    ) throws {
        guard count >= 1 else { throw StorageError(.misuse, "a PostgreSQL database needs at least one connection") }
        let connect: @Sendable () throws -> PostgresConnection = {
            try PostgresConnection(url: url, requireSynchronousStandby: requireSynchronousStandby)
        }
        let primaryDoubt = PostgresPrimaryDoubt()
        self.primaryDoubt = primaryDoubt
        connections = PostgresPool(
            try (0..<count).map { _ in try connect() }, label: "postern.postgres",
            timeout: commitTimeout, primaryDoubt: primaryDoubt, connect: connect,
            onDoubt: { error, reason in Self.report(error, reason: reason, logger: logger) })
        self.logger = logger
        self.url = url
        loopReads = loopReactor.map { reactor in
            let readers = PostgresLoopReaders(
                url: url, perLoop: loopConnections, timeout: commitTimeout ?? .seconds(600),
                primaryDoubt: primaryDoubt, logger: logger)
            return (readers, reactor)
        }
        logger.debug("storage opened", metadata: ["backend": "postgres", "connections": "\(count)"])
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await connections.async { try body($0) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await connections.async(reading: true) { try body($0) }
    }

    public func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try connections.sync(body)
    }

    public func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try connections.sync(reading: true, body)
    }

    public func probeWrite(now: Int64) async throws {
        try await write { connection in try Self.probe(connection, now: now) }
    }

    public func close() {
        loopReads?.readers.close()
        connections.close()
    }

    /// A ``PostgresListener`` on `channel`, reconnecting while the database is away or when its probe shows it listens
    /// where the writes no longer go.
    public func listen(
        on channel: String, logger: Logger, onPayloads: @escaping @Sendable ([String]?) -> Void
    ) -> (any SQLNotificationListener)? {
        PostgresListener(url: url, channel: channel, logger: logger, onPayloads: onPayloads)
    }

    /// How many connections left the pool after a call outlived the commit timeout (for tests).
    var replacedConnections: Int { connections.replacedCount }
    /// Idle connections made anew after a write in doubt (for tests).
    var reconnectedConnections: Int { connections.reconnectedCount }

    /// Logs a commit in doubt at error (the message names the statement, never a value) and counts it: the caller
    /// answers 503 for a write that may be lost at the next failover or found done later.
    static func report(_ error: StorageError, reason: CommitDoubtReason, logger: Logger) {
        logger.error(
            "a write was not acknowledged: its commit is in doubt",
            metadata: ["reason": "\(reason.rawValue)", "error": "\(error.message)"])
        Counter(label: "postern_storage_commits_in_doubt_total", dimensions: [("reason", reason.rawValue)]).increment()
    }
}

extension PostgresDatabase: LoopReading {
    public var readsOnCallingLoop: Bool {
        loopReads?.reactor() != nil
    }

    public func readOnLoop<T>(
        _ sql: String, _ bindings: [SQLValue], decode: @escaping ([SQLRow]) throws -> T,
        completion: @escaping (Result<T, any Error>) -> Void
    ) -> Bool {
        guard let loopReads, let reactor = loopReads.reactor() else { return false }
        return loopReads.readers.read(on: reactor, sql, bindings) { rows in
            completion(rows.flatMap { rows in Result { try decode(rows) } })
        }
    }

    public var readsOnLoops: Bool { loopReads != nil }
}
