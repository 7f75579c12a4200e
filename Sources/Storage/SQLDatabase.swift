import Logging
import Synchronization

/// A database the stores read and write through, on SQLite (`Database`, the embedded default) or on
/// PostgreSQL (`PostgresDatabase`): closures run on a connection confined to its own queue.
public protocol SQLDatabase: AnyObject, Sendable {
    /// Which SQL its connections speak.
    var dialect: SQLDialect { get }
    /// Receives debug-level lines about the store.
    var logger: Logger { get }
    /// Runs `body` with a connection that may write; use `connection.transaction` for more than one statement.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// Runs `body` with a connection for reading.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// Blocking `write`, for the command line, start-up and timers (never from a database queue).
    func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Blocking `read`.
    func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Proves the database accepts a durable write (for `/readyz`).
    func probeWrite(now: Int64) async throws
    /// Closes every connection once the work already queued on it has run.
    func close()
    /// Starts listening on `channel` (a constant of the caller's, lower case letters and underscores, never input) on
    /// a connection of its own: `onPayloads` is called with each batch of notifications' payloads, and with nil after
    /// each (re)connection, when whatever was sent meanwhile is unknown. Nil where the database has no notifications
    /// (SQLite).
    func listen(on channel: String, logger: Logger, onPayloads: @escaping @Sendable ([String]?) -> Void)
        -> (any SQLNotificationListener)?
}

/// A database whose point reads may run on the calling thread, waiting for no other thread: SQLite (`Database`), each
/// such thread reading on a read-only connection of its own, which in WAL mode waits for no writer. PostgreSQL is none:
/// its read is a round trip, which stays on a pool.
public protocol ThreadOwnedReading: SQLDatabase {
    /// Runs `body` on the calling thread with a read-only connection that thread owns.
    /// - Throws: what `body` throws, or the storage's error.
    func readOnCallingThread<T: Sendable>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Queues `body` to the writer without waiting (the calling thread is an event loop's): `completion` is called
    /// once, off the calling thread, after the commit or with the error.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void)
}

extension SQLDatabase {
    /// This database where its point reads may run, and its writes be queued without waiting, on the calling thread
    /// (an event loop's short work): SQLite's (``ThreadOwnedReading``); nil on PostgreSQL, whose every read and write
    /// is a round trip. The one check every store's calling-thread path makes.
    public var callingThread: (any ThreadOwnedReading)? { self as? any ThreadOwnedReading }

    /// The readiness probe's upsert, the same on both dialects.
    public static func probe(_ connection: any SQLConnection, now: Int64) throws {
        try connection.run(
            """
            INSERT INTO readiness_probe(id, checked_at) VALUES (1, ?)
            ON CONFLICT(id) DO UPDATE SET checked_at = excluded.checked_at
            """,
            [.integer(now)])
    }
}

/// A few connections, each on its own queue, every use going to the one with the fewest blocks queued or
/// running, so one slow read (a backup, say) does not hold up the work that round robin would have queued
/// behind it: SQLite's readers, PostgreSQL's connections.
public final class LeastBusy<Connection: SQLConnection>: Sendable {
    private let connections: [ConfinedConnection<Connection>]
    private let state: Mutex<(inFlight: [Int], rotation: Int)>

    /// Balances over `connections` (at least one).
    public init(_ connections: [ConfinedConnection<Connection>]) {
        precondition(!connections.isEmpty, "LeastBusy needs a connection")
        self.connections = connections
        state = Mutex((Array(repeating: 0, count: connections.count), 0))
    }

    /// Runs `body` on the least busy connection's queue (`ConfinedConnection.async`).
    public func async<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let index = acquire()
        defer { release(index) }
        return try await connections[index].async(body)
    }

    /// Runs `body` on the least busy connection's queue, blocking the caller (`ConfinedConnection.sync`).
    public func sync<T>(_ body: (Connection) throws -> T) throws -> T {
        let index = acquire()
        defer { release(index) }
        return try connections[index].sync(body)
    }

    /// Closes every connection once the blocks already queued on it have run.
    public func close() {
        for connection in connections { connection.close() }
    }

    /// The least busy connection's index (ties go round robin); paired with `release`.
    private func acquire() -> Int {
        state.withLock { state in LeastBusyChoice.take(&state.inFlight, rotation: &state.rotation) }
    }

    private func release(_ index: Int) {
        state.withLock { $0.inFlight[index] -= 1 }
    }
}

/// The choice `LeastBusy` makes, for pools of another shape (PostgreSQL's, which replaces its connections).
public enum LeastBusyChoice {
    /// The index with the fewest blocks in flight (ties go round robin from `rotation`), counted in, and the rotation
    /// moved past it; among the first `first` indices only when given (at least one; all by default).
    public static func take(_ inFlight: inout [Int], rotation: inout Int, among first: Int? = nil) -> Int {
        let count = max(1, min(first ?? inFlight.count, inFlight.count))
        var best = rotation % count
        for offset in 0..<count {
            let candidate = (rotation + offset) % count
            if inFlight[candidate] < inFlight[best] { best = candidate }
        }
        inFlight[best] += 1
        rotation = (best + 1) % inFlight.count
        return best
    }
}
