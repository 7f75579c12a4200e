import Foundation
import Synchronization
import Testing

@testable import ComputePool

@Suite("WorkerPool", .timeLimit(.minutes(1)))
struct WorkerPoolTests {
    @Test("runs work and returns its value")
    func returnsValue() async throws {
        let pool = WorkerPool(threads: 2, queueLimit: 4)
        let value = try await pool.run { (1...1000).reduce(0, +) }
        #expect(value == 500_500)
    }

    @Test("rethrows what the work throws")
    func passesErrorsOn() async {
        struct Boom: Error, Equatable {}
        let pool = WorkerPool(threads: 1, queueLimit: 1)
        await #expect(throws: Boom()) { try await pool.run { () throws -> Int in throw Boom() } }
    }

    @Test("never runs more jobs at once than it has threads")
    func boundedConcurrency() async throws {
        let pool = WorkerPool(threads: 2, queueLimit: 64)
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.run {
                        gauge.enter()
                        Thread.sleep(forTimeInterval: 0.02)
                        gauge.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(gauge.peak <= 2)
        #expect(gauge.peak >= 1)
    }

    @Test("a caller that submits again as soon as its job returns finds the thread free")
    func threadFreeBeforeCallerResumes() async throws {
        // One thread and no queue: each job must find the thread the previous one just left.
        let pool = WorkerPool(threads: 1, queueLimit: 0)
        for round in 0..<500 {
            #expect(try await pool.run { round } == round)
        }
    }

    @Test("a flood of one lane neither fills another lane's queue nor runs ahead of its jobs")
    func lanesTakeTurns() async throws {
        // One thread, blocked by the first proof of work; ten more proofs wait, then one signature. The first is
        // running before the others are sent: sent together, another could take the thread first and finish, and
        // the queue would never hold ten.
        let pool = WorkerPool(threads: 1, queueLimit: 10)
        let gate = DispatchSemaphore(value: 0)
        let running = Gauge()
        let order = Log()
        let first = Task {
            try await pool.run(.proofOfWork) {
                running.enter()
                gate.wait()
                order.append("proof")
            }
        }
        while running.peak == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let proofs = [first] + (1..<11).map { _ in Task { try await pool.run(.proofOfWork) { order.append("proof") } } }
        while pool.queuedCount < 10 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: WorkerPoolError.self, "the proof-of-work lane is full") {
            try await pool.run(.proofOfWork) {}
        }
        let signature = Task { try await pool.run(.signing) { order.append("signature") } }
        while pool.queuedCount < 11 { try await Task.sleep(for: .milliseconds(5)) }
        gate.signal()
        try await signature.value
        for proof in proofs { try await proof.value }
        // The signature runs after the proof that held the thread and at most one more, not after all ten.
        let position = try #require(order.entries.firstIndex(of: "signature"))
        #expect(position <= 2, "\(order.entries)")
    }

    @Test("threads start on demand, never more than the limit, and all queued jobs run")
    func threadsStartOnDemand() async throws {
        let pool = WorkerPool(threads: 3, queueLimit: 64, name: "test-pool")
        #expect(pool.startedThreads == 0)
        let gate = DispatchSemaphore(value: 0)
        let jobs = (0..<12).map { index in Task { try await pool.run { gate.wait(); return index } } }
        while pool.queuedCount < 9 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(pool.startedThreads == 3)
        for _ in 0..<12 { gate.signal() }
        var sum = 0
        for job in jobs { sum += try await job.value }
        #expect(sum == 66)
        #expect(pool.startedThreads == 3)
    }

    @Test("shutdown finishes the queued jobs, joins the threads and refuses new work")
    func shutdownDrainsAndJoins() async throws {
        let pool = WorkerPool(threads: 2, queueLimit: 8)
        let finished = Gauge()
        let started = Gauge()
        let gate = DispatchSemaphore(value: 0)
        let jobs = (0..<6).map { _ in
            Task {
                try await pool.run {
                    started.enter()
                    gate.wait()
                    Thread.sleep(forTimeInterval: 0.01)
                    finished.enter()
                }
            }
        }
        // Every job handed over before the shutdown: two running on the two threads, four waiting in the queue.
        while started.peak < 2 || pool.queuedCount < 4 { try await Task.sleep(for: .milliseconds(5)) }
        for _ in 0..<6 { gate.signal() }
        pool.shutdown()
        // Joined: every queued job has run by the time shutdown returns.
        #expect(finished.peak == 6)
        for job in jobs { try await job.value }
        await #expect(throws: WorkerPoolError.overloaded) { try await pool.run { 1 } }
        pool.shutdown()
    }

    @Test("submit calls its completion on a worker thread with the work's result, or at once with .overloaded")
    func submitCompletes() throws {
        let pool = WorkerPool(threads: 1, queueLimit: 0, name: "submit-test")
        let outcome = Mutex<(value: Int, thread: String)?>(nil)
        let done = DispatchSemaphore(value: 0)
        pool.submit(.signing, { 6 * 7 }) { result in
            outcome.withLock { $0 = ((try? result.get()) ?? 0, Thread.current.name ?? "") }
            done.signal()
        }
        done.wait()
        let completed = try #require(outcome.withLock { $0 })
        #expect(completed.value == 42)
        #expect(completed.thread.hasPrefix("submit-test"))
        // With the only thread busy and no queue, the refusal comes back before submit returns.
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        pool.submit(.other, { started.signal(); release.wait() }) { _ in }
        started.wait()
        let refusal = Mutex<WorkerPoolError?>(nil)
        pool.submit(.signing, { 0 }) { result in
            if case .failure(let error) = result { refusal.withLock { $0 = error as? WorkerPoolError } }
        }
        #expect(refusal.withLock { $0 } == .overloaded)
        release.signal()
        pool.shutdown()
    }

    @Test("refuses at once with .overloaded when the queue is full")
    func overload() async throws {
        let pool = WorkerPool(threads: 1, queueLimit: 1)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // Occupy the only thread, then fill the one queue place.
        let blocker = Task {
            try await pool.run {
                started.signal()
                release.wait()
            }
        }
        started.wait()
        let queued = Task { try await pool.run { 42 } }
        // Wait until the second job is really queued.
        while pool.queuedCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: WorkerPoolError.overloaded) { try await pool.run { 0 } }
        release.signal()
        try await blocker.value
        #expect(try await queued.value == 42)
        // Room again once the queue drained.
        #expect(try await pool.run { 7 } == 7)
    }
}

/// Counts jobs running at once (or, without `leave`, entered so far) and remembers the most seen.
final class Gauge: Sendable {
    private let state = Mutex((running: 0, peak: 0))

    func enter() {
        state.withLock {
            $0.running += 1
            $0.peak = max($0.peak, $0.running)
        }
    }

    func leave() {
        state.withLock { $0.running -= 1 }
    }

    var peak: Int { state.withLock { $0.peak } }
}

/// What jobs wrote, in the order they ran.
private final class Log: Sendable {
    private let list = Mutex<[String]>([])

    func append(_ entry: String) { list.withLock { $0.append(entry) } }
    var entries: [String] { list.withLock { $0 } }
}
