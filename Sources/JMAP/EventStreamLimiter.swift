import ClientAddress
import Synchronization

/// Counts the open event streams, in total and per client address, against the configured caps; a `Lease` is one
/// open stream and gives its place back when it ends.
final class EventStreamLimiter: Sendable {
    /// Why a stream was refused.
    enum Refusal: Error {
        case tooManyForClient
        case tooMany
    }

    /// One open stream.
    final class Lease: Sendable {
        private let limiter: EventStreamLimiter
        private let client: ClientAddressKey
        private let released = Atomic<Bool>(false)

        fileprivate init(limiter: EventStreamLimiter, client: ClientAddressKey) {
            self.limiter = limiter
            self.client = client
        }

        /// Gives the stream's place back (once).
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            limiter.release(client)
        }

        deinit { release() }
    }

    private struct State {
        var total = 0
        var perClient: [ClientAddressKey: Int] = [:]
    }

    let maxTotal: Int
    let maxPerClient: Int
    private let state = Mutex(State())

    init(maxTotal: Int, maxPerClient: Int) {
        self.maxTotal = maxTotal
        self.maxPerClient = maxPerClient
    }

    /// Streams open now.
    var openCount: Int { state.withLock { $0.total } }

    /// A place for one more stream of `client`.
    /// - Throws: `Refusal` when the client's cap or the total is reached.
    func open(for client: ClientAddressKey) throws -> Lease {
        try state.withLock { state in
            let mine = state.perClient[client, default: 0]
            guard mine < maxPerClient else { throw Refusal.tooManyForClient }
            guard state.total < maxTotal else { throw Refusal.tooMany }
            state.perClient[client] = mine + 1
            state.total += 1
        }
        return Lease(limiter: self, client: client)
    }

    private func release(_ client: ClientAddressKey) {
        state.withLock { state in
            state.total -= 1
            let left = state.perClient[client, default: 1] - 1
            state.perClient[client] = left > 0 ? left : nil
        }
    }
}
