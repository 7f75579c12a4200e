import PosternTestSupport
import Synchronization
import Testing

@testable import MailStore

/// Each rule of the one change stream (issue 82 item 4), on a clock the test moves: a change is handed out at once,
/// an announcement without a state move is a wake-up, a quiet spell is a `quiet` element after the re-check, a
/// re-check that says no ends the stream, and so does `until`. On SQLite the stream also looks again each second of
/// the clock for another process's writes, which announce nothing here.
@Suite("Mail change stream: each rule, on a clock the test moves", .timeLimit(.minutes(1)))
struct MailChangeStreamRuleTests {
    static let address = "rules@mail.localhost"

    /// A clock that moves only when told (``advance(by:)``); its sleepers wake when their deadline is passed.
    final class ManualClock: Sendable {
        private struct State {
            var now = ContinuousClock.now
            var next = 0
            var sleepers: [Int: (deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
            var cancelled: Set<Int> = []
        }

        private let state = Mutex(State())

        var clock: MailStreamClock {
            MailStreamClock(now: { self.state.withLock { $0.now } }, sleep: { try await self.sleep(for: $0) })
        }

        /// How many sleepers wait for the clock now.
        var sleepers: Int { state.withLock { $0.sleepers.count } }

        func advance(by duration: Duration) {
            let due = state.withLock { state in
                state.now += duration
                let due = state.sleepers.filter { $0.value.deadline <= state.now }
                for id in due.keys { state.sleepers[id] = nil }
                return due.values.map(\.continuation)
            }
            for continuation in due { continuation.resume() }
        }

        private func sleep(for duration: Duration) async throws {
            let id = state.withLock { state in
                state.next += 1
                return state.next
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let resume: Result<Void, any Error>? = state.withLock { state in
                        if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                        let deadline = state.now + duration
                        if deadline <= state.now { return .success(()) }
                        state.sleepers[id] = (deadline, continuation)
                        return nil
                    }
                    if let resume { continuation.resume(with: resume) }
                }
            } onCancel: {
                let continuation = state.withLock { state in
                    guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                        state.cancelled.insert(id)
                        return nil as CheckedContinuation<Void, any Error>?
                    }
                    return sleeper.continuation
                }
                continuation?.resume(throwing: CancellationError())
            }
        }
    }

    /// The stream's next element, taken in a task of its own while the clock moves a second at a time (once something
    /// sleeps on it) up to `limit`; nil when the stream ended.
    static func next(_ stream: MailChangeStream, moving clock: ManualClock, upTo limit: Duration = .seconds(120))
        async throws -> MailStreamEvent?
    {
        let finished = Mutex(false)
        let task = Task {
            defer { finished.withLock { $0 = true } }
            var iterator = stream.makeAsyncIterator()
            return try await iterator.next()
        }
        var moved = Duration.zero
        while !finished.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(10))
            guard moved < limit else {
                task.cancel()
                break
            }
            if clock.sleepers > 0 {
                clock.advance(by: .seconds(1))
                moved += .seconds(1)
            }
        }
        return try await task.value
    }

    /// A store on a new database of `backend` (the caller keeps the database alive), a clock the test moves, and the
    /// address's state now.
    static func fixture(_ backend: StorageBackend) async throws -> (MailDatabase, MailStore, ManualClock, Int64) {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        return (db, store, ManualClock(), try await store.state(address: address))
    }

    @Test("nothing happens: a quiet element once the interval has passed, after the re-check", arguments: StorageBackend.allCases)
    func quiet(_ backend: StorageBackend) async throws {
        let (db, store, clock, start) = try await Self.fixture(backend)
        defer { withExtendedLifetime(db) {} }
        let rechecks = Mutex(0)
        let stream = store.changeStream(
            of: Self.address, from: start, quiet: .seconds(30),
            recheck: { rechecks.withLock { $0 += 1 }; return true }, clock: clock.clock)
        let began = clock.clock.now()
        #expect(try await Self.next(stream, moving: clock) == .quiet)
        #expect(clock.clock.now() - began >= .seconds(30))
        #expect(rechecks.withLock { $0 } == 1)
    }

    @Test("a re-check that says no ends the stream at the quiet element", arguments: StorageBackend.allCases)
    func recheckEnds(_ backend: StorageBackend) async throws {
        let (db, store, clock, start) = try await Self.fixture(backend)
        defer { withExtendedLifetime(db) {} }
        let stream = store.changeStream(
            of: Self.address, from: start, quiet: .seconds(5), recheck: { false }, clock: clock.clock)
        #expect(try await Self.next(stream, moving: clock) == nil)
    }

    @Test("until passes with nothing to hand out: the stream ends", arguments: StorageBackend.allCases)
    func untilEnds(_ backend: StorageBackend) async throws {
        let (db, store, clock, start) = try await Self.fixture(backend)
        defer { withExtendedLifetime(db) {} }
        let stream = store.changeStream(
            of: Self.address, from: start, until: clock.clock.now() + .seconds(10), clock: clock.clock)
        let began = clock.clock.now()
        #expect(try await Self.next(stream, moving: clock) == nil)
        #expect(clock.clock.now() - began >= .seconds(10))
    }

    @Test("a state other than the one known is handed out at once; an announcement without a move is a wake-up", arguments: StorageBackend.allCases)
    func changedAndWoken(_ backend: StorageBackend) async throws {
        let (db, store, clock, start) = try await Self.fixture(backend)
        defer { withExtendedLifetime(db) {} }
        let recipient = MailStore.Recipient(address: Self.address, quota: 100_000)
        _ = try await store.deliver(MailStoreTests.message("one"), to: [recipient], folder: .inbox, now: 1)
        let stream = store.changeStream(of: Self.address, from: start, clock: clock.clock)
        var iterator = stream.makeAsyncIterator()
        let first = try await iterator.next()
        if case .changed(let change)? = first {
            #expect(change.previous == start && change.state == start + 1 && change.log?.map(\.kind) == [.created])
        } else {
            Issue.record("no change handed out: \(String(describing: first))")
        }

        let known = store.changeStream(of: Self.address, from: start + 1, clock: clock.clock)
        let woken = Task { () -> MailStreamEvent? in
            var iterator = known.makeAsyncIterator()
            return try await iterator.next()
        }
        while store.changes.waiting(for: Self.address) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        store.changes.announce([Self.address])
        #expect(try await woken.value == .woken)
    }

    @Test("SQLite: a write the stream was not told of (another process's) is found by the look each second")
    func sqliteLooks() async throws {
        let db = try MailDatabase(.sqlite)
        let store = MailStore(database: db.database)
        let other = MailStore(database: try db.test.another())  // its announcements reach its own MailChanges only
        let clock = ManualClock()
        let start = try await store.state(address: Self.address)
        let stream = store.changeStream(of: Self.address, from: start, clock: clock.clock)
        let task = Task { () -> MailStreamEvent? in
            var iterator = stream.makeAsyncIterator()
            return try await iterator.next()
        }
        while clock.sleepers == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let recipient = MailStore.Recipient(address: Self.address, quota: 100_000)
        _ = try await other.deliver(MailStoreTests.message("elsewhere"), to: [recipient], folder: .inbox, now: 1)
        #expect(store.changes.waiting(for: Self.address) == 1, "not woken by the other store's write")
        clock.advance(by: MailStore.unannouncedLookInterval)
        let found = try await task.value
        if case .changed(let change)? = found {
            #expect(change.state == start + 1)
        } else {
            Issue.record("no change found: \(String(describing: found))")
        }
    }
}
