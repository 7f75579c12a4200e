import Synchronization

/// Counts the open event streams, in total and per key (a client address for JMAP, a session for the web inbox),
/// against the configured caps; a `Lease` is one open stream and gives its place back when it ends.
public final class EventStreamLimiter<Key: Hashable & Sendable>: Sendable {
    /// Why a stream was refused.
    public enum Refusal: Error {
        /// The key's cap is reached.
        case tooManyForKey
        /// The total is reached.
        case tooMany
    }

    /// One open stream.
    public final class Lease: Sendable {
        private let limiter: EventStreamLimiter
        private let key: Key
        private let released = Atomic<Bool>(false)

        fileprivate init(limiter: EventStreamLimiter, key: Key) {
            self.limiter = limiter
            self.key = key
        }

        /// Gives the stream's place back (once).
        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            limiter.release(key)
        }

        deinit { release() }
    }

    private struct State {
        var total = 0
        var perKey: [Key: Int] = [:]
    }

    /// The most streams open at once.
    public let maxTotal: Int
    /// The most streams open at once under one key.
    public let maxPerKey: Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - maxTotal: the most streams open at once.
    ///   - maxPerKey: the most streams open at once under one key.
    public init(maxTotal: Int, maxPerKey: Int) {
        self.maxTotal = maxTotal
        self.maxPerKey = maxPerKey
    }

    /// Streams open now.
    public var openCount: Int { state.withLock { $0.total } }

    /// A place for one more stream under `key`.
    /// - Throws: `Refusal` when the key's cap or the total is reached.
    public func open(for key: Key) throws -> Lease {
        try state.withLock { state in
            let mine = state.perKey[key, default: 0]
            guard mine < maxPerKey else { throw Refusal.tooManyForKey }
            guard state.total < maxTotal else { throw Refusal.tooMany }
            state.perKey[key] = mine + 1
            state.total += 1
        }
        return Lease(limiter: self, key: key)
    }

    private func release(_ key: Key) {
        state.withLock { state in
            state.total -= 1
            let left = state.perKey[key, default: 1] - 1
            state.perKey[key] = left > 0 ? left : nil
        }
    }
}
