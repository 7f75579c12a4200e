import Fetch
import PosternTestSupport
import Synchronization
import Testing

/// One run per key at a time: callers of a key in flight share its run, its result and its error; nothing is kept
/// after it ends.
@Suite("Single flight", .timeLimit(.minutes(2)))
struct SingleFlightTests {
    struct Refused: Error, Equatable {}

    /// How many times a work ran.
    final class Runs: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Starts the run of `key` through `flights` in a task, its work counted in `runs` and held at `gate`.
    static func start(
        _ flights: SingleFlight<String, Int, Refused>, _ key: String, runs: Runs, gate: TestGate,
        result: Result<Int, Refused>
    ) -> Task<Result<Int, Refused>, Never> {
        Task {
            do throws(Refused) {
                return .success(
                    try await flights.run(key) { () async throws(Refused) -> Int in
                        runs.add()
                        await gate.wait()
                        return try result.get()
                    })
            } catch {
                return .failure(error)
            }
        }
    }

    @Test("callers of a key in flight share its one run and its result; another key runs on its own")
    func shared() async throws {
        let flights = SingleFlight<String, Int, Refused>()
        let (runs, otherRuns) = (Runs(), Runs())
        let gate = TestGate()
        var callers = [Self.start(flights, "doc", runs: runs, gate: gate, result: .success(7))]
        try await waitUntil("the first run started", limit: .seconds(60)) { runs.value == 1 }
        for _ in 0..<4 { callers.append(Self.start(flights, "doc", runs: runs, gate: gate, result: .success(8))) }
        let open = TestGate()
        await open.open()
        let other = await Self.start(flights, "other", runs: otherRuns, gate: open, result: .success(9)).value
        #expect(other == .success(9) && otherRuns.value == 1, "not held behind doc's run")
        try await waitUntil("five callers wait on one run", limit: .seconds(60)) {
            await flights.waiting(for: "doc") == 5
        }
        await gate.open()
        for caller in callers { #expect(await caller.value == .success(7)) }
        #expect(runs.value == 1)
        #expect(await flights.waiting(for: "doc") == 0)
    }

    @Test("a failure reaches every caller of its run and is not kept: the next caller runs again")
    func failureNotKept() async throws {
        let flights = SingleFlight<String, Int, Refused>()
        let runs = Runs()
        let gate = TestGate()
        let first = Self.start(flights, "doc", runs: runs, gate: gate, result: .failure(Refused()))
        try await waitUntil("the first run started", limit: .seconds(60)) { runs.value == 1 }
        let second = Self.start(flights, "doc", runs: runs, gate: gate, result: .success(1))
        try await waitUntil("two callers wait on one run", limit: .seconds(60)) {
            await flights.waiting(for: "doc") == 2
        }
        await gate.open()
        #expect(await first.value == .failure(Refused()))
        #expect(await second.value == .failure(Refused()))
        let again = await Self.start(flights, "doc", runs: runs, gate: gate, result: .success(2)).value
        #expect(again == .success(2) && runs.value == 2)
    }
}
