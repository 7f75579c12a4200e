import LeasedQueue
import Storage
import Synchronization

/// Wakes whoever waits for an address's mail to change: the in-process half of the change stream. The composition
/// root makes one and gives it to every ``MailStore`` it builds; the store announces its own writes after they commit,
/// and on PostgreSQL the composition root feeds it the `postern_mail` notifications of other instances
/// (``announce(_:)`` with their addresses, ``announceEverywhere()`` after the listener reconnects).
///
/// Waiting is race-free through tickets: take a ``ticket()``, look at the store, then ``wait(for:after:timeout:)``
/// with that ticket, which returns at once when anything was announced since the ticket was taken.
public final class MailChanges: Sendable {
    /// A point in the announcement sequence, taken before looking at the store.
    public struct Ticket: Sendable, Equatable {
        let generation: UInt64
    }

    private struct Waiter {
        var address: String
        var continuation: CheckedContinuation<Bool, Never>?
    }

    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        /// Waiters woken before they had parked: true by an announcement, false by their timeout or cancellation.
        var wokenEarly: [UInt64: Bool] = [:]
    }

    private let state = Mutex(State())

    /// Signalled by every announcement, whatever its addresses: what waiters for a change anywhere (the webhook
    /// queue's runner, the operator's waits) park on, with its own tickets.
    public let anyChange = Wakeup()

    /// The messages retention pruned lately: told before the pass is announced, so a waiter it wakes can tell them
    /// from deletes.
    public let pruned = MailPrunedRecord()

    /// A stream with no waiters yet.
    public init() {}

    /// Now, in the announcement sequence.
    public func ticket() -> Ticket {
        Ticket(generation: state.withLock { $0.generation })
    }

    /// How many waiters are parked for `address` right now (for tests that must know a waiter is waiting).
    public func waiting(for address: String) -> Int {
        state.withLock { state in state.waiters.values.count { $0.address == address && $0.continuation != nil } }
    }

    /// How many waiters are parked right now, for every address (the `postern_mail_waiting_requests` gauge).
    public var waitingTotal: Int {
        state.withLock { state in state.waiters.values.count { $0.continuation != nil } }
    }

    /// Wakes the waiters of `addresses` (lower-cased, as the store keeps them).
    public func announce(_ addresses: some Sequence<String>) {
        let wanted = Set(addresses)
        guard !wanted.isEmpty else { return }
        wake { wanted.contains($0) }
    }

    /// Wakes every waiter: something may have changed anywhere (a notification listener reconnected).
    public func announceEverywhere() {
        wake { _ in true }
    }

    /// Returns when `address` is announced after `ticket`, at once when anything was announced since, or after
    /// `timeout` (measured by `sleep`: the continuous clock's, or a test's), or when the task is cancelled. The caller
    /// looks at the store again in every case; the result says whether an announcement woke it (true also when
    /// anything was announced between the ticket and the wait), false after the timeout or cancellation.
    @discardableResult
    public func wait(
        for address: String, after ticket: Ticket, timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async -> Bool {
        await park(address, after: ticket, timeout: timeout, sleep: sleep)
    }

    private func park(
        _ address: String, after ticket: Ticket, timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) async -> Bool {
        let id: UInt64? = state.withLock { state in
            guard state.generation == ticket.generation else { return nil }
            state.nextID += 1
            state.waiters[state.nextID] = Waiter(address: address)
            return state.nextID
        }
        guard let id else { return true }
        let timer = Task {
            guard (try? await sleep(timeout)) != nil else { return }
            self.wake(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let early: Bool? = state.withLock { state in
                    if let announced = state.wokenEarly.removeValue(forKey: id) { return announced }
                    state.waiters[id]?.continuation = continuation
                    return nil
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            self.wake(id)
        }
    }

    private func wake(where matches: (String) -> Bool) {
        let woken: [CheckedContinuation<Bool, Never>] = state.withLock { state in
            state.generation &+= 1
            var woken: [CheckedContinuation<Bool, Never>] = []
            for (id, waiter) in state.waiters where matches(waiter.address) {
                state.waiters[id] = nil
                if let continuation = waiter.continuation {
                    woken.append(continuation)
                } else {
                    state.wokenEarly[id] = true
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume(returning: true) }
        anyChange.signal()
    }

    /// Ends waiter `id`'s wait without an announcement (its timeout, or its task cancelled).
    private func wake(_ id: UInt64) {
        let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else { return nil }
            if waiter.continuation == nil { state.wokenEarly[id] = false }
            return waiter.continuation
        }
        continuation?.resume(returning: false)
    }
}
