import Foundation

/// A fixed set of threads for blocking network I/O, with a bounded queue in front.
///
/// Fetches block in `poll` for up to their deadline, so they get their own threads: never the
/// server's socket queues, never the CPU worker pool that Argon2 needs. The threads end when the
/// executor is released (after finishing the jobs already queued).
final class BlockingExecutor: Sendable {
    private let queue: JobQueue

    /// Starts `threads` threads that live as long as the executor.
    init(threads: Int, queueLimit: Int, name: String) {
        queue = JobQueue(limit: queueLimit)
        for index in 0..<max(1, threads) {
            let queue = self.queue
            let thread = Thread { queue.runLoop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit {
        queue.stop()
    }

    /// Queues `job`; false (and nothing queued) when the queue is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        queue.submit(job)
    }
}

/// The jobs waiting for a thread.
private final class JobQueue: @unchecked Sendable {
    // @unchecked: `jobs` and `stopped` are only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, jobs.count < limit else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
