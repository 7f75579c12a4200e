import Foundation

/// Blocking work (joining threads, closing a database, waiting on a PostgreSQL connection) on a thread of its own,
/// so that an async caller never blocks the cooperative pool the deferred handlers need.
enum Blocking {
    /// Runs `work` on a new thread and returns its result once it has finished.
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
