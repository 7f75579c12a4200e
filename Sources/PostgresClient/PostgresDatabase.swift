import CoreMetrics
import Logging
import Storage

/// A PostgreSQL database as the stores see it: a few libpq connections, each confined to a serial queue of
/// its own, every read and write going to the least busy one. Any number of Postern instances can share
/// the database; what must agree across them is decided by the database (unique keys, SERIALIZABLE
/// transactions), never by this process.
public final class PostgresDatabase: SQLDatabase {
    /// PostgreSQL's.
    public var dialect: SQLDialect { .postgres }
    /// Receives debug-level lines about the store.
    public let logger: Logger
    private let connections: LeastBusy<PostgresConnection>

    /// Connects `count` times to `url`.
    /// - Throws: `StorageError` `.unavailable` when the server cannot be reached, `.misuse` for a count below 1.
    public init(url: String, count: Int = 4, logger: Logger) throws {
        guard count >= 1 else { throw StorageError(.misuse, "a PostgreSQL database needs at least one connection") }
        connections = LeastBusy(
            try (0..<count).map {
                ConfinedConnection(connection: try PostgresConnection(url: url), label: "postern.postgres.\($0)")
            })
        self.logger = logger
        logger.debug("storage opened", metadata: ["backend": "postgres", "connections": "\(count)"])
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await reportingDoubt { try await connections.async { try body($0) } }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await write(body)
    }

    public func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        do {
            return try connections.sync(body)
        } catch let error as StorageError where error.code == .inDoubt {
            Self.report(error, reason: .replicationCanceled, logger: logger)
            throw error
        }
    }

    /// Why a commit is in doubt: the `reason` of `postern_storage_commits_in_doubt_total`.
    enum DoubtReason: String {
        /// The wait for the synchronous standby was canceled (``PostgresNotice``).
        case replicationCanceled = "replication_canceled"
    }

    /// Runs `call`, reporting a commit in doubt it throws.
    private func reportingDoubt<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as StorageError where error.code == .inDoubt {
            Self.report(error, reason: .replicationCanceled, logger: logger)
            throw error
        }
    }

    /// Logs a commit in doubt at error (the message names the statement, never a value) and counts it: the caller
    /// answers 503 for a write that may be lost at the next failover or found done later.
    static func report(_ error: StorageError, reason: DoubtReason, logger: Logger) {
        logger.error(
            "a write was not acknowledged: its commit is in doubt",
            metadata: ["reason": "\(reason.rawValue)", "error": "\(error.message)"])
        Counter(label: "postern_storage_commits_in_doubt_total", dimensions: [("reason", reason.rawValue)]).increment()
    }

    public func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writeSync(body)
    }

    public func probeWrite(now: Int64) async throws {
        try await write { connection in try Self.probe(connection, now: now) }
    }

    public func close() {
        connections.close()
    }
}
