import ComputePool
import Foundation

/// A one-thread pool with no queue whose thread can be held busy, to see how handlers answer overload.
final class WorkerPoolBlocker: Sendable {
    let pool = WorkerPool(threads: 1, queueLimit: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)

    /// Occupies the pool's only thread until `release()`; returns once the thread is busy.
    func block() async throws {
        let gate = gate
        let started = started
        Task {
            try await pool.run {
                started.signal()
                gate.wait()
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                continuation.resume()
            }
        }
    }

    /// Lets the blocked job finish.
    func release() { gate.signal() }
}
