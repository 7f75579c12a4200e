import Foundation

/// A bounded set of threads for blocking network I/O, with a bounded queue in front.
///
/// Fetches block in `poll` for up to their deadline, so they get their own threads: never the
/// server's socket queues, never the CPU worker pool that Argon2 needs. Threads start on demand, one
/// per job that finds no idle thread, up to `threads`; a process that never fetches starts none. They
/// end when the executor is released (after finishing the jobs already queued).
final class BlockingExecutor: Sendable {
    private let queue: JobQueue

    /// Prepares up to `threads` threads (started when jobs need them) that live as long as the executor.
    init(threads: Int, queueLimit: Int, name: String) {
        queue = JobQueue(limit: queueLimit, maxThreads: max(1, threads), name: name)
    }

    deinit {
        queue.stop()
    }

    /// Queues `job`; false (and nothing queued) when the queue is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        queue.submit(job)
    }

    /// Threads started so far (for tests).
    var startedThreads: Int { queue.startedThreads }
}

/// The jobs waiting for a thread.
private final class JobQueue: @unchecked Sendable {
    // @unchecked: `jobs`, `stopped`, `started` and `idle` are only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false
    private var started = 0
    private var idle = 0
    private let limit: Int
    private let maxThreads: Int
    private let name: String

    init(limit: Int, maxThreads: Int, name: String) {
        self.limit = limit
        self.maxThreads = maxThreads
        self.name = name
    }

    var startedThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        guard !stopped, jobs.count < limit else {
            condition.unlock()
            return false
        }
        jobs.append(job)
        // A job no idle thread will take gets a new thread while there are fewer than `maxThreads`.
        let startThread = jobs.count > idle && started < maxThreads
        let index = started
        if startThread { started += 1 }
        condition.signal()
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in runLoop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
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
            while jobs.isEmpty && !stopped {
                idle += 1
                condition.wait()
                idle -= 1
            }
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
