import MailDelivery
import PosternTestSupport
import Synchronization

/// A transport written for the tests: records every batch, answers each recipient as scripted (by its local part's
/// first word: `ok`, `gone` 550 5.1.1, `later` 451 once then 250), and can hold deliveries until released, counting
/// how many run at once per domain.
final class RecordingTransport: OutboundTransport {
    private struct State {
        var batches: [OutboundBatch] = []
        var connections: [[String]] = []
        var deferredOnce: Set<String> = []
        var running: [String: Int] = [:]
        var mostAtOnce: [String: Int] = [:]
        var held: [CheckedContinuation<Void, Never>] = []
        var startedWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var started = 0
    }

    private let state = Mutex(State())
    private let holds: Bool

    /// - Parameter holds: when true, every delivery waits for ``releaseNext()`` (or ``releaseOne()``).
    init(holds: Bool = false) {
        self.holds = holds
    }

    var batches: [OutboundBatch] { state.withLock { $0.batches } }
    /// The message ids each call carried together (one connection's worth).
    var connections: [[String]] { state.withLock { $0.connections } }

    /// One connection: each batch in turn, `settled` told of each as it ends (as a real session records a message
    /// when its transaction ends, before the next).
    func deliver(_ batches: [OutboundBatch], settled: @escaping OutboundSettled) async -> [[OutboundOutcome]] {
        state.withLock { $0.connections.append(batches.map(\.messageID)) }
        var outcomes: [[OutboundOutcome]] = []
        for (index, batch) in batches.enumerated() {
            outcomes.append(await deliver(batch))
            settled(index, outcomes[index])
        }
        return outcomes
    }
    /// The most deliveries that ran at once to each domain.
    var mostAtOnce: [String: Int] { state.withLock { $0.mostAtOnce } }
    var heldCount: Int { state.withLock { $0.held.count } }

    func deliver(_ batch: OutboundBatch) async -> [OutboundOutcome] {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.batches.append(batch)
            state.running[batch.domain, default: 0] += 1
            state.mostAtOnce[batch.domain] = max(state.mostAtOnce[batch.domain] ?? 0, state.running[batch.domain]!)
            state.started += 1
            let ready = state.startedWatchers.filter { $0.count <= state.started }.map(\.continuation)
            state.startedWatchers.removeAll { $0.count <= state.started }
            return ready
        }
        for watcher in watchers { watcher.resume() }
        if holds {
            await withCheckedContinuation { continuation in state.withLock { $0.held.append(continuation) } }
        }
        let outcomes = batch.recipients.map { recipient in
            state.withLock { state -> OutboundOutcome in
                let name = recipient.prefix { $0 != "@" && $0 != "-" }
                switch name {
                case "gone":
                    return OutboundOutcome(
                        recipient: recipient, status: .permanent("550 5.1.1 <\(recipient)>: no such user"),
                        remoteHost: "mx.\(batch.domain)")
                case "later" where state.deferredOnce.insert(recipient).inserted:
                    return OutboundOutcome(
                        recipient: recipient, status: .temporary("451 4.7.1 greylisted"),
                        remoteHost: "mx.\(batch.domain)")
                default:
                    return OutboundOutcome(
                        recipient: recipient, status: .accepted("250 2.0.0 queued as X"),
                        remoteHost: "mx.\(batch.domain)")
                }
            }
        }
        state.withLock { $0.running[batch.domain, default: 1] -= 1 }
        return outcomes
    }

    /// Returns once `count` deliveries have started (a holding one may not hold yet: release it with ``releaseNext()``).
    func started(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.started >= count { return true }
                state.startedWatchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the oldest held delivery go on, once one is held (a delivery counts as started just before it holds).
    func releaseNext() async {
        while !releaseOne() { await Task.yield() }
    }

    /// Lets the oldest held delivery go on; false when none is held.
    @discardableResult
    func releaseOne() -> Bool {
        let next = state.withLock { state in state.held.isEmpty ? nil : state.held.removeFirst() }
        next?.resume()
        return next != nil
    }
}
