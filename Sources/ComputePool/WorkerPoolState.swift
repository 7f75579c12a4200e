import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The queue shared by a ``WorkerPool`` and its threads.
///
/// `@unchecked Sendable`: every mutable field is read and written only while holding `condition`.
final class WorkerPoolState: @unchecked Sendable {
    /// A job computes its result on a worker thread and returns what hands that result to the caller.
    typealias Job = @Sendable () -> (@Sendable () -> Void)

    private let condition = NSCondition()
    private var jobs: [Job?] = []
    private var head = 0
    private var stopped = false
    private let threadCount: Int
    private let queueLimit: Int
    private let name: String
    /// Threads started and not yet joined or detached.
    private var threads: [pthread_t] = []
    private var started = 0
    /// Threads waiting for a job.
    private var idle = 0
    /// Threads running a job. A thread counts as free again before its caller is resumed, so a caller
    /// that submits its next job at once finds the thread it just used free.
    private var busyThreads = 0

    init(threadCount: Int, queueLimit: Int, name: String) {
        self.threadCount = threadCount
        self.queueLimit = queueLimit
        self.name = name
    }

    var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    var startedThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// Queues a job, starting a thread when no idle one will take it; false when the pool is stopped or
    /// the queue is full. A job that a free (or not yet started) thread will take at once does not
    /// count against the limit.
    func enqueue(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let waiting = jobs.count - head
        if stopped || waiting - (threadCount - busyThreads) >= queueLimit { return false }
        jobs.append(job)
        if waiting + 1 > idle && started < threadCount { spawn() }
        condition.signal()
        return true
    }

    /// Refuses new jobs and lets the threads finish the queued ones and exit; with `join`, waits until
    /// they have, otherwise detaches them.
    func stop(join: Bool) {
        condition.lock()
        stopped = true
        let running = threads
        threads = []
        condition.broadcast()
        condition.unlock()
        for thread in running {
            if join { pthread_join(thread, nil) } else { pthread_detach(thread) }
        }
    }

    /// Starts one more thread; the caller holds `condition`, so that `stop` sees every thread started.
    /// Should the system refuse a thread, the queued jobs wait for the threads already running, or for
    /// the next job to start one.
    private func spawn() {
        let index = started
        let body = Unmanaged.passRetained(ThreadBody { [self] in
            // Linux keeps at most 15 bytes of a thread name: shorten the prefix, keep the index.
            let suffix = "-\(index)"
            Thread.current.name = String(name.prefix(15 - suffix.count)) + suffix
            workLoop()
        })
        #if canImport(Darwin)
            var thread: pthread_t? = nil
            let result = pthread_create(&thread, nil, ThreadBody.entry, body.toOpaque())
            if result == 0, let thread { threads.append(thread) }
        #else
            var thread = pthread_t()
            let result = pthread_create(&thread, nil, ThreadBody.entry, body.toOpaque())
            if result == 0 { threads.append(thread) }
        #endif
        if result == 0 { started += 1 } else { body.release() }
    }

    private func workLoop() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped {
                idle += 1
                condition.wait()
                idle -= 1
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

/// What a new pthread runs, passed through its `void *` argument.
private final class ThreadBody {
    let run: () -> Void

    init(_ run: @escaping () -> Void) { self.run = run }

    static let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
        guard let argument else { return nil }
        Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().run()
        return nil
    }
}
