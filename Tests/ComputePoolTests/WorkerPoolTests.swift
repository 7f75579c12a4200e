import Foundation
import Synchronization
import Testing

@testable import ComputePool

@Suite("WorkerPool")
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

/// Counts jobs running at once and remembers the most seen.
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
