import Dispatch

/// A connection paired with the one serial queue it may be used on.
///
/// `@unchecked Sendable` is safe because `connection` is only ever touched from blocks submitted to
/// `queue` (`async`/`sync` in `Database`, and timers targeting `queue`), so no two threads use it at once.
final class ConfinedConnection: @unchecked Sendable {
    let queue: DispatchQueue
    /// Nil once closed; read and written only on `queue`.
    private var connection: SQLiteConnection?

    init(connection: SQLiteConnection, label: String) {
        self.connection = connection
        self.queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the queue and resumes the caller with its result.
    func async<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.runConfined(body) })
            }
        }
    }

    /// Runs `body` on the queue, blocking the calling thread.
    /// - Warning: calling this from a block already running on `queue` deadlocks; it traps instead.
    func sync<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try runConfined(body) }
    }

    /// Runs `body` with the connection; must already be on `queue` (timer handlers).
    func onQueue<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        return try runConfined(body)
    }

    /// Closes the connection after the blocks already queued; later blocks throw `.misuse`.
    func close() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync { connection = nil }
    }

    /// A body that leaves a transaction open would poison every later block: roll it back.
    private func runConfined<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard let connection else { throw StorageError(.misuse, "the database is closed") }
        defer { connection.rollbackIfOpen() }
        return try body(connection)
    }
}
