import Dispatch
import Storage
import Synchronization

/// PostgreSQL's connections, each confined to a serial queue of its own, every call going to the least busy one
/// (ties round robin), with a bound on how long the caller waits.
///
/// The guarantees:
/// - A call that has not returned within ``timeout`` resumes its caller with an error: `.inDoubt` when its body had
///   started (a commit may be waiting for a synchronous standby that is gone, which nothing else bounds), or
///   `.unavailable` when it had not (it then never runs: nothing was written). A read (`reading`) has no commit to
///   doubt: past the timeout it is `.unavailable` either way, and counts no commit in doubt, so that its callers wait
///   it out and retry as they do any unavailable database (a push stream's look during a failover).
/// - A started body is never canceled (a cancel during the wait for the standby commits anyway, see
///   ``PostgresNotice``). Its connection leaves the pool at once, replaced by a new one so that later calls (reads
///   above all) do not queue behind it, and is closed when the body returns.
/// - A write past the timeout also makes every idle connection anew (``reconnectIdle(except:)``): none stays, reading,
///   on a server a failover may have left behind. It raises ``PostgresPrimaryDoubt`` first, which the event loops'
///   read connections follow: the pool is the one place that doubt is decided.
/// - At most as many connections as the pool holds are left waiting so; past that a stuck connection stays in place
///   (its calls time out in turn) rather than the pool opening connections without end.
/// - Reads always have a connection no write holds: of three connections or more, the last takes reads alone, so that
///   writes stuck waiting for a lost standby (each a probe of `/readyz`, a lease, a claim) can fill every other one
///   and reads still answer, as the failover stage asks.
/// - The waiting is a continuation and a timer: no thread (an event loop least of all) blocks on a call. The timer is
///   one sweep over the calls in progress, every tenth of the timeout (at most every 100 ms) while there are any, not
///   one timer per call: a timer per call was armed and fired for every call, long after most had answered, and
///   libdispatch's timer thread alone took an eighth of an account read's CPU (perf, docs/performance.md).
final class PostgresPool: Sendable {
    typealias Slot = ConfinedConnection<PostgresConnection>

    private struct State {
        var slots: [Slot]
        var inFlight: [Int]
        var rotation = 0
        /// Connections taken out of the pool whose body has not returned yet.
        var abandoned = 0
        var replaced = 0
        /// Idle connections made anew after a write in doubt (``reconnectIdle(except:)``).
        var reconnected = 0
    }

    private let state: Mutex<State>
    /// How long a caller waits; nil: for ever.
    let timeout: Duration?
    /// The calls in progress, with what to do when their time is up.
    private let deadlines = Mutex(Watch())

    private struct Watch {
        var calls: [UInt64: (deadline: DispatchTime, expire: @Sendable () -> Void)] = [:]
        var lastID: UInt64 = 0
        /// A sweep is scheduled (it schedules the next while calls remain).
        var sweeping = false
    }
    /// Makes the connection replacing an abandoned one.
    private let connect: @Sendable () throws -> PostgresConnection
    /// Raised when a write outlives the timeout (the loops' read connections follow it).
    private let primaryDoubt: PostgresPrimaryDoubt
    /// Told of each commit in doubt: a body that threw `.inDoubt`, or a call that timed out after its body started.
    private let onDoubt: @Sendable (StorageError, CommitDoubtReason) -> Void

    /// A pool over `connections` (at least one).
    /// - Parameters:
    ///   - primaryDoubt: raised when a write outlives `timeout`, before the idle connections are made anew.
    ///   - connect: makes a replacement connection (same URL).
    ///   - onDoubt: called (on a connection's queue or the timer's) for each commit in doubt.
    init(
        _ connections: [PostgresConnection], label: String, timeout: Duration?,
        primaryDoubt: PostgresPrimaryDoubt = PostgresPrimaryDoubt(),
        connect: @escaping @Sendable () throws -> PostgresConnection,
        onDoubt: @escaping @Sendable (StorageError, CommitDoubtReason) -> Void
    ) {
        precondition(!connections.isEmpty, "a pool needs a connection")
        let slots = connections.enumerated().map { Slot(connection: $1, label: "\(label).\($0)") }
        state = Mutex(State(slots: slots, inFlight: Array(repeating: 0, count: slots.count)))
        self.timeout = timeout
        self.primaryDoubt = primaryDoubt
        self.connect = connect
        self.onDoubt = onDoubt
    }

    /// What a caller waits for: resumed once, by the body's end or by the timer, whichever comes first.
    private final class Call<T: Sendable>: Sendable {
        enum Phase { case queued, running, finished }
        /// `counted`: the call's connection was taken out of the pool and counts among the abandoned until it ends.
        private let state: Mutex<(phase: Phase, continuation: CheckedContinuation<T, any Error>?, counted: Bool)>

        init(_ continuation: CheckedContinuation<T, any Error>) {
            state = Mutex((.queued, continuation, false))
        }

        /// Whether the body may start: false once the caller has gone.
        func start() -> Bool {
            state.withLock { state in
                guard state.continuation != nil else { return false }
                state.phase = .running
                return true
            }
        }

        /// Resumes the caller with the body's result (unless the caller had already gone); returns whether the call
        /// counted among the abandoned.
        func finish(_ result: Result<T, any Error>) -> Bool {
            let (continuation, counted) = state.withLock { state in
                state.phase = .finished
                return (state.continuation.take(), state.counted)
            }
            continuation?.resume(with: result)
            return counted
        }

        /// Counts the call among the abandoned, unless its body has ended meanwhile (false).
        func count() -> Bool {
            state.withLock { state in
                guard state.phase != .finished else { return false }
                state.counted = true
                return true
            }
        }

        /// Takes the caller away from the body at the timeout: the phase the call was in and the caller to resume,
        /// nil when the body had already answered.
        func expire() -> (Phase, CheckedContinuation<T, any Error>)? {
            state.withLock { state in state.continuation.take().map { (state.phase, $0) } }
        }
    }

    /// Runs `body` on the least busy connection's queue and resumes the caller with its result, or with an error
    /// after ``timeout`` (see the type's guarantees); `reading`: `body` writes nothing.
    func async<T: Sendable>(
        reading: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let (index, slot) = acquire(reading: reading)
        return try await withCheckedThrowingContinuation { continuation in
            let call = Call(continuation)
            let watched = timeout.map { timeout in
                self.watch(until: .now() + Self.interval(timeout)) {
                    self.expire(call, index, slot, after: timeout, reading: reading)
                }
            }
            slot.queue.async {
                guard call.start() else { return self.release(index, slot) }
                let result = Result { try slot.onQueue { connection in try self.reportingDoubt(connection, body) } }
                let counted = call.finish(result)
                if let watched { self.unwatch(watched) }
                self.release(index, slot)
                if counted { self.state.withLock { $0.abandoned -= 1 } }
            }
        }
    }

    /// Takes the caller of `call` away at its timeout: `.unavailable` when its body had not started (it never will),
    /// `.inDoubt` when it had (its connection leaves the pool first), or `.unavailable` then too for a read; nothing
    /// when it had answered.
    private func expire<T: Sendable>(
        _ call: Call<T>, _ index: Int, _ slot: Slot, after timeout: Duration, reading: Bool
    ) {
        let seconds = timeout.components.seconds
        guard let (phase, caller) = call.expire() else { return }
        guard phase == .running else {
            return caller.resume(
                throwing: StorageError(.unavailable, "no PostgreSQL connection was free within \(seconds) s"))
        }
        // Replaced before the caller resumes, so that its next call finds a free connection.
        if abandon(index, slot) && !call.count() { state.withLock { $0.abandoned -= 1 } }
        guard !reading else {
            return caller.resume(
                throwing: StorageError(
                    .unavailable,
                    "PostgreSQL did not answer a read within \(seconds) s (POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS)"))
        }
        let error = StorageError(
            .inDoubt,
            "not confirmed by PostgreSQL within \(seconds) s (POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS); it was "
                + "not canceled and may be found done later")
        onDoubt(error, .timeout)
        caller.resume(throwing: error)
        primaryDoubt.raise()  // the loops' connections first: they have no other way to hear of it
        reconnectIdle(except: index)
    }

    /// Registers a call whose time is up at `deadline`; the sweep runs `expire` then unless ``unwatch(_:)`` came first.
    private func watch(until deadline: DispatchTime, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, schedule) = deadlines.withLock { watch in
            watch.lastID += 1
            watch.calls[watch.lastID] = (deadline, expire)
            defer { watch.sweeping = true }
            return (watch.lastID, !watch.sweeping)
        }
        if schedule { scheduleSweep() }
        return id
    }

    private func unwatch(_ id: UInt64) {
        deadlines.withLock { _ = $0.calls.removeValue(forKey: id) }
    }

    private func scheduleSweep() {
        guard let timeout else { return }
        let step = Self.interval(min(timeout / 10, .milliseconds(100)))
        DispatchQueue.global().asyncAfter(deadline: .now() + step) { self.sweep() }
    }

    /// Expires the calls whose time is up, each on a thread of its own (taking a connection out of the pool connects
    /// a new one), and comes back while calls remain.
    private func sweep() {
        let now = DispatchTime.now()
        let (due, again) = deadlines.withLock { watch in
            let ids = watch.calls.compactMap { $0.value.deadline <= now ? $0.key : nil }
            let due = ids.compactMap { watch.calls.removeValue(forKey: $0)?.expire }
            watch.sweeping = !watch.calls.isEmpty
            return (due, watch.sweeping)
        }
        for expire in due { DispatchQueue.global().async(execute: expire) }
        if again { scheduleSweep() }
    }

    /// Runs `body` on the least busy connection's queue, blocking the caller, without a timeout (start-up, the
    /// command line, timers, a worker's read); a read may take the connection kept for reads, as ``async`` does.
    func sync<T>(reading: Bool = false, _ body: (PostgresConnection) throws -> T) throws -> T {
        let (index, slot) = acquire(reading: reading)
        defer { release(index, slot) }
        return try slot.sync { connection in try reportingDoubt(connection, body) }
    }

    /// `body` on `connection`, telling ``onDoubt`` of an `.inDoubt` it throws, with the reason the connection gives.
    private func reportingDoubt<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try body(connection)
        } catch let error as StorageError where error.code == .inDoubt {
            onDoubt(error, connection.takeDoubtReason() ?? .replicationCanceled)
            throw error
        }
    }

    /// Closes every connection in the pool once the blocks already queued on it have run.
    func close() {
        for slot in state.withLock({ $0.slots }) { slot.close() }
    }

    /// How many connections were taken out of the pool (for tests).
    var replacedCount: Int { state.withLock { $0.replaced } }

    /// How many idle connections were made anew after a write in doubt (for tests).
    var reconnectedCount: Int { state.withLock { $0.reconnected } }

    /// Takes `slot`, whose call at `index` outlived the timeout, out of the pool: a new connection takes its place,
    /// and the old one is closed when its last queued block has run (nothing else refers to it then). Returns whether
    /// it did, and so counted one more abandoned connection.
    private func abandon(_ index: Int, _ slot: Slot) -> Bool {
        let room = state.withLock { state in
            guard state.slots[index] === slot, state.abandoned < state.slots.count else { return false }
            state.abandoned += 1
            return true
        }
        guard room else { return false }
        guard let replacement = replacement(for: slot) else {
            state.withLock { $0.abandoned -= 1 }  // the server is out of reach: the stuck connection stays
            return false
        }
        state.withLock { state in
            state.slots[index] = replacement
            state.inFlight[index] = 0
            state.replaced += 1
        }
        return true
    }

    /// A new connection in a slot of its own, to take `slot`'s place; nil when the server is out of reach.
    private func replacement(for slot: Slot) -> Slot? {
        (try? connect()).map { Slot(connection: $0, label: "\(slot.queue.label).r") }
    }

    /// Connects anew each connection but the one at `index` that has no call in flight. A write past the timeout says
    /// the server may be an old primary another has replaced (a failover whose old leader stays up and writable, as
    /// when Patroni dies under it), and a connection that only reads, the last above all, would stay there: its
    /// answers older than what this instance's other connections, reconnected to the new primary, have written and
    /// acknowledged (a refresh token rotated there read back as unknown). A busy one follows when its own call
    /// outlives the timeout; on a server that is still the primary this costs a connection each, after a failure.
    private func reconnectIdle(except index: Int) {
        let idle = state.withLock { state in
            state.slots.indices.filter { $0 != index && state.inFlight[$0] == 0 }.map { ($0, state.slots[$0]) }
        }
        for (other, old) in idle {
            guard let replacement = replacement(for: old) else { return }  // out of reach: the next failure tries again
            state.withLock { state in
                // Replaced or taken meanwhile: the replacement closes unused.
                guard state.slots[other] === old, state.inFlight[other] == 0 else { return }
                state.slots[other] = replacement
                state.reconnected += 1
            }
        }
    }

    /// The least busy connection for a call: any for a read; for a write, any but the last of three or more (the
    /// type's guarantees).
    private func acquire(reading: Bool) -> (Int, Slot) {
        state.withLock { state in
            let writable = state.slots.count >= 3 ? state.slots.count - 1 : state.slots.count
            let index = LeastBusyChoice.take(
                &state.inFlight, rotation: &state.rotation, among: reading ? nil : writable)
            return (index, state.slots[index])
        }
    }

    /// Counts a call at `index` done, unless `slot` has left the pool since (its replacement starts at zero).
    private func release(_ index: Int, _ slot: Slot) {
        state.withLock { state in
            if state.slots[index] === slot { state.inFlight[index] -= 1 }
        }
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
