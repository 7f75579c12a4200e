import Foundation

/// A bounded set of threads for work that must not run on the socket event loops or the Swift
/// concurrency cooperative pool: CPU-heavy hashing (scrypt, Argon2, RSA signing) and blocking network
/// I/O (fetches), each in its own pool.
///
/// Threads start on demand, one per job that finds no idle thread, up to `threadCount`; a pool that
/// never runs a job starts none. Jobs beyond the free threads wait in a bounded FIFO queue; when it is
/// full `run` throws `WorkerPoolError.overloaded` at once, so that load turns into fast 503s instead
/// of a growing backlog of requests that time out anyway. Each kind of work waits in a lane of its own
/// (``Lane``), with a queue of its own, and free threads take the lanes in turn: a flood of proofs of work
/// neither fills the queue that signing needs nor makes a signature wait behind all of it.
/// ``shutdown()`` finishes the queued jobs and joins the threads.
public final class WorkerPool: Sendable {
    /// The kinds of work that queue apart and share the threads fairly.
    public enum Lane: Int, CaseIterable, Sendable {
        /// scrypt proofs of work: anyone may ask for one with a cheap challenge.
        case proofOfWork
        /// Argon2 password hashing and verification.
        case passwordHash
        /// RSA signatures.
        case signing
        /// Anything else (blocking I/O of a fetcher's own pool, tests).
        case other
    }

    private let state: WorkerPoolState

    /// The most threads the pool runs.
    public let threadCount: Int
    /// The most jobs allowed to wait while every thread is busy.
    public let queueLimit: Int

    /// Makes a pool; its threads start when jobs need them.
    /// - Parameters:
    ///   - threads: most worker threads, at least 1; defaults to the active processor count.
    ///   - queueLimit: jobs of one lane allowed to wait while every thread is busy before `run` throws
    ///     `.overloaded`; at least 0 (0: a job runs only when a thread is free).
    ///   - name: the threads' name prefix (`<name>-<index>`), as `top -H` and debuggers show it.
    public init(
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, queueLimit: Int = 256,
        name: String = "postern-worker"
    ) {
        threadCount = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        state = WorkerPoolState(threadCount: threadCount, queueLimit: self.queueLimit, name: name)
    }

    deinit {
        // Without `shutdown()` the threads still finish the queued jobs, then exit on their own.
        state.stop(join: false)
    }

    /// Runs `work` on one of the pool's threads, queued in `lane`, and returns its result.
    ///
    /// - Throws: `WorkerPoolError.overloaded` at once when every thread is busy and the lane's queue is
    ///   full, or after ``shutdown()``; otherwise whatever `work` throws. Cancelling the calling task
    ///   does not stop `work` once queued.
    public func run<T: Sendable>(_ lane: Lane = .other, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            submit(lane, work) { continuation.resume(with: $0) }
        }
    }

    /// Runs `work` on one of the pool's threads, queued in `lane`, and calls `completion` with its result on that
    /// thread, once the thread counts as free again; for a caller that is not a Swift concurrency task (a route
    /// that answers through a completion), which then has no task to resume between the pool and its answer.
    ///
    /// When the pool refuses the job (every thread busy and the lane's queue full, or after ``shutdown()``),
    /// `completion` is called at once, on the calling thread, with `WorkerPoolError.overloaded`.
    /// - Warning: `completion` runs on a worker thread: it must be quick and must not block.
    public func submit<T: Sendable>(
        _ lane: Lane = .other, _ work: @escaping @Sendable () throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let accepted = state.enqueue(lane: lane) {
            let result = Result { try work() }
            return { completion(result) }
        }
        if !accepted { completion(.failure(WorkerPoolError.overloaded)) }
    }

    /// Refuses new work, lets the threads finish every job already queued, and returns once they have
    /// all exited (joined), so that nothing runs on them afterwards. Later calls return at once.
    /// - Warning: never call this from a job on the same pool: it would wait for itself.
    public func shutdown() {
        state.stop(join: true)
    }

    /// Jobs waiting for a thread right now (for metrics).
    public var queuedCount: Int { state.queuedCount }

    /// Threads started so far (they start on demand; for tests).
    public var startedThreads: Int { state.startedThreads }
}
