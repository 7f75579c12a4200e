import Synchronization

/// The end of an open-ended response, as its writers keep it: handlers that run once when it ends, or at once
/// when it has.
public final class HTTPStreamEnd: Sendable {
    private let state = Mutex<(ended: Bool, handlers: [@Sendable () -> Void])>((false, []))

    /// A stream not ended yet.
    public init() {}

    /// Whether the stream has ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Calls `handler` once when the stream ends; at once when it has.
    public func onEnd(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.ended { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Ends the stream and runs its handlers (once: later calls do nothing).
    public func end() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            guard !state.ended else { return [] }
            state.ended = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }
}
