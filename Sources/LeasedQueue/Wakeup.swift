import Synchronization

/// The one wake-up primitive of this process: a generation that ``signal()`` moves on and that ``wait(after:timeout:)``
/// parks on. A ``QueueRunner`` waits on one between rounds: the outbound queue's, signalled by a record that queues a
/// recipient and by an attempt that ends; the mail store's changes' (``MailChanges``'s any-address waiters), signalled
/// by every announced change, for the webhook queue. What another instance writes without a signal here is found by
/// the runner's next look.
///
/// Race-free through tickets: take a ``ticket()``, look at the queue, then wait with that ticket, which returns at
/// once when a signal came since it was taken.
public final class Wakeup: Sendable {
    private struct State {
        var generation = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits that timed out or were cancelled before their continuation was registered.
        var ended: Set<Int> = []
        var next = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// The current generation: pass it to ``wait(after:timeout:)`` to wait for a signal after this moment.
    public func ticket() -> Int { state.withLock { $0.generation } }

    /// How many are parked right now (for tests that must know a waiter is waiting).
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Wakes every waiter.
    public func signal() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns after a signal later than `ticket`, after `timeout` (measured by `sleep`: the continuous clock's, or a
    /// test's), or when the task is cancelled.
    public func wait(
        after ticket: Int, timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        let timer = Task { [self] in
            guard (try? await sleep(timeout)) != nil else { return }
            resume(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.ended.remove(id) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.generation != ticket || state.ended.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: Int) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.ended.insert(id)
                return nil
            }
            return waiter
        }?.resume()
    }
}
