import Dispatch

/// A connection paired with the one serial queue it may be used on (SQLite's and PostgreSQL's alike).
///
/// `@unchecked Sendable` is safe because `connection` is only ever touched from blocks submitted to
/// `queue` (`async`/`sync`, and timers targeting `queue`), so no two threads use it at once.
public final class ConfinedConnection<Connection: SQLConnection>: @unchecked Sendable {
    /// The queue every use of the connection runs on.
    public let queue: DispatchQueue
    /// Nil once closed; read and written only on `queue`.
    private var connection: Connection?

    /// Confines `connection` to a new serial queue named `label`.
    public init(connection: Connection, label: String) {
        self.connection = connection
        self.queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the queue and resumes the caller with its result.
    public func async<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.runConfined(body) })
            }
        }
    }

    /// Runs `body` on the queue, blocking the calling thread.
    /// - Warning: calling this from a block already running on `queue` deadlocks; it traps instead.
    public func sync<T>(_ body: (Connection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try runConfined(body) }
    }

    /// Runs `body` with the connection; must already be on `queue` (timer handlers).
    public func onQueue<T>(_ body: (Connection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        return try runConfined(body)
    }

    /// Closes the connection after the blocks already queued; later blocks throw `.misuse`.
    public func close() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync { connection = nil }
    }

    /// A body that leaves a transaction open would poison every later block: roll it back.
    private func runConfined<T>(_ body: (Connection) throws -> T) throws -> T {
        guard let connection else { throw StorageError(.misuse, "the database is closed") }
        defer { connection.rollbackIfOpen() }
        return try body(connection)
    }
}
