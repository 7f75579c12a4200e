import Foundation

/// Why the pool refused work.
public enum WorkerPoolError: Error, Sendable {
    /// The queue of waiting jobs is full; the caller should answer 503 rather than wait.
    case overloaded
}

/// A fixed set of threads for CPU-heavy work (scrypt, Argon2, RSA signing), away from the socket
/// event queues and from the Swift concurrency cooperative pool.
///
/// Jobs beyond the running ones wait in a bounded FIFO queue; when it is full `run` throws
/// `WorkerPoolError.overloaded` at once, so that load turns into fast 503s instead of a growing
/// backlog of requests that time out anyway.
public final class WorkerPool: Sendable {
    private let state: WorkerPoolState

    /// The number of worker threads.
    public let threadCount: Int
    /// The most jobs allowed to wait while every thread is busy.
    public let queueLimit: Int

    /// Starts the pool's threads.
    /// - Parameters:
    ///   - threads: worker threads, at least 1; defaults to the active processor count.
    ///   - queueLimit: jobs allowed to wait while every thread is busy before `run` throws
    ///     `.overloaded`; at least 0.
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, queueLimit: Int = 256) {
        threadCount = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        state = WorkerPoolState(threadCount: threadCount, queueLimit: self.queueLimit)
        for index in 0..<threadCount {
            let state = self.state
            let thread = Thread { state.workLoop() }
            thread.name = "postern-worker-\(index)"
            thread.start()
        }
    }

    deinit {
        state.stop()
    }

    /// Runs `work` on one of the pool's threads and returns its result.
    ///
    /// - Throws: `WorkerPoolError.overloaded` at once when the waiting queue is full; otherwise
    ///   whatever `work` throws. Cancelling the calling task does not stop `work` once queued.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let accepted = state.enqueue {
                let result = Result { try work() }
                return { continuation.resume(with: result) }
            }
            if !accepted {
                continuation.resume(throwing: WorkerPoolError.overloaded)
            }
        }
    }

    /// Jobs waiting for a thread right now (for metrics).
    public var queuedCount: Int { state.queuedCount }
}

/// The queue shared by the pool and its threads.
///
/// `@unchecked Sendable`: every mutable field is read and written only while holding `condition`.
private final class WorkerPoolState: @unchecked Sendable {
    /// A job computes its result on a worker thread and returns what hands that result to the caller.
    typealias Job = @Sendable () -> (@Sendable () -> Void)

    private let condition = NSCondition()
    private var jobs: [Job?] = []
    private var head = 0
    private var stopped = false
    private let threadCount: Int
    private let queueLimit: Int
    /// Threads running a job. A thread counts as free again before its caller is resumed, so a caller
    /// that submits its next job at once finds the thread it just used free.
    private var busyThreads = 0

    init(threadCount: Int, queueLimit: Int) {
        self.threadCount = threadCount
        self.queueLimit = queueLimit
    }

    var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Queues a job; false when the queue is full. A job that a free thread will take at once does
    /// not count against the limit.
    func enqueue(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let waiting = jobs.count - head
        if stopped || waiting - (threadCount - busyThreads) >= queueLimit { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Lets the threads finish the queued jobs and exit.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    func workLoop() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped {
                condition.wait()
            }
            if head == jobs.count && stopped {
                condition.unlock()
                return
            }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            busyThreads += 1
            condition.unlock()
            let handOver = job?()
            condition.lock()
            busyThreads -= 1
            condition.unlock()
            handOver?()
        }
    }
}
