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

    /// One lane's jobs, first in first out.
    private struct Queue {
        var jobs: [Job?] = []
        var head = 0

        var count: Int { jobs.count - head }

        mutating func pop() -> Job? {
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let condition = NSCondition()
    /// The waiting jobs of each lane (``WorkerPool/Lane``), taken in turn.
    private var queues: [Queue] = Array(repeating: Queue(), count: WorkerPool.Lane.allCases.count)
    /// Jobs waiting in every lane.
    private var waiting = 0
    /// The lane a free thread looks at first: the one after the lane it served last.
    private var nextLane = 0
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
        return waiting
    }

    var startedThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// Queues a job in `lane`, starting a thread when no idle one will take it; false when the pool is
    /// stopped or the lane's queue is full. A job that a free (or not yet started) thread will take at
    /// once does not count against the limit.
    func enqueue(lane: WorkerPool.Lane, _ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let index = lane.rawValue
        if stopped || queues[index].count - (threadCount - busyThreads) >= queueLimit { return false }
        queues[index].jobs.append(job)
        waiting += 1
        if waiting > idle && started < threadCount { spawn() }
        condition.signal()
        return true
    }

    /// The next job, from the first lane at or after `nextLane` that has one; the caller holds `condition`
    /// and has seen `waiting > 0`. Taking lanes in turn keeps a flood of one kind of work (proofs of work,
    /// say) from making another kind (signing) wait behind all of it: a job waits for at most one job of
    /// each other lane that has work.
    private func takeNext() -> Job? {
        for offset in queues.indices {
            let index = (nextLane + offset) % queues.count
            guard queues[index].count > 0 else { continue }
            nextLane = (index + 1) % queues.count
            waiting -= 1
            return queues[index].pop()
        }
        return nil
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
            while waiting == 0 && !stopped {
                idle += 1
                condition.wait()
                idle -= 1
            }
            if waiting == 0 && stopped {
                condition.unlock()
                return
            }
            let job = takeNext()
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
