import LeasedQueue
import Logging
import Synchronization
import Testing

/// The one runner loop: at once again while rounds find work, then a wait on the wakeup that a signal, the next due
/// time or the idle interval ends; a failed round is logged and tried again; cancellation ends it.
@Suite("Queue runner", .timeLimit(.minutes(1)))
struct QueueRunnerTests {
    /// Counts rounds and answers each with what `answer` says for its number (from 1).
    final class Rounds: Sendable {
        let count = Atomic<Int>(0)
        let answer: @Sendable (Int) throws -> QueueRunner.Round

        init(_ answer: @escaping @Sendable (Int) throws -> QueueRunner.Round) {
            self.answer = answer
        }

        func next() throws -> QueueRunner.Round {
            try answer(count.add(1, ordering: .relaxed).newValue)
        }
    }

    struct Down: Error {}

    static func runner(_ wakeup: Wakeup, idle: Duration) -> QueueRunner {
        QueueRunner(wakeup: wakeup, idleInterval: idle, logger: Logger(label: "runner.tests"), failure: "test queue down")
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("rounds that work run again at once; an idle one waits until the wakeup is signalled")
    func workThenWake() async throws {
        let wakeup = Wakeup()
        let rounds = Rounds { $0 <= 3 ? .worked : QueueRunner.Round(worked: false) }
        let runner = Self.runner(wakeup, idle: .seconds(3600))
        let running = Task { await runner.run { try rounds.next() } }
        try await Self.waitUntil { wakeup.waiting == 1 }
        #expect(rounds.count.load(ordering: .relaxed) == 4)
        wakeup.signal()
        try await Self.waitUntil { rounds.count.load(ordering: .relaxed) == 5 && wakeup.waiting == 1 }
        running.cancel()
        await running.value
        #expect(rounds.count.load(ordering: .relaxed) == 5)
    }

    @Test("an idle round's next due time ends the wait without a signal; a due time of zero runs again at once")
    func nextDue() async throws {
        let wakeup = Wakeup()
        let rounds = Rounds { number in
            switch number {
            case 1: QueueRunner.Round(worked: false, nextDueIn: .zero)
            case 2: QueueRunner.Round(worked: false, nextDueIn: .milliseconds(20))
            default: QueueRunner.Round(worked: false)
            }
        }
        let runner = Self.runner(wakeup, idle: .seconds(3600))
        let running = Task { await runner.run { try rounds.next() } }
        try await Self.waitUntil { rounds.count.load(ordering: .relaxed) == 3 && wakeup.waiting == 1 }
        running.cancel()
        await running.value
    }

    @Test("a round that throws is tried again after the idle interval")
    func failureRetried() async throws {
        let wakeup = Wakeup()
        let rounds = Rounds { number in
            if number <= 2 { throw Down() }
            return QueueRunner.Round(worked: false)
        }
        let runner = Self.runner(wakeup, idle: .milliseconds(20))
        let running = Task { await runner.run { try rounds.next() } }
        try await Self.waitUntil { rounds.count.load(ordering: .relaxed) >= 3 }
        running.cancel()
        await running.value
    }

    @Test("a wait with a ticket taken before a signal returns at once")
    func ticketBeforeSignal() async {
        let wakeup = Wakeup()
        let ticket = wakeup.ticket()
        wakeup.signal()
        let start = ContinuousClock.now
        await wakeup.wait(after: ticket, timeout: .seconds(3600))
        #expect(ContinuousClock.now - start < .seconds(60))
    }
}
