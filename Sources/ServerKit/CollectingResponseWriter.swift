import HTTP1
import Synchronization

/// A response writer that keeps what is written and gives it back as one response once the stream finishes (or
/// answers at once): how tests and async callers run a stream route without a connection. ``end()`` plays the
/// client going away.
public final class CollectingResponseWriter: HTTPResponseWriter {
    private struct State {
        var head: HTTPResponse?
        var body: [UInt8] = []
        var waiters: [CheckedContinuation<HTTPResponse, Never>] = []
        var result: HTTPResponse?
    }

    private let state = Mutex(State())
    private let ending = HTTPStreamEnd()

    /// A writer with nothing written.
    public init() {}

    public func respond(_ response: HTTPResponse) {
        state.withLock { state in
            guard state.head == nil else { return }
            state.head = response
            state.body = response.body
        }
        finish()
    }

    public func open(_ head: HTTPResponse) {
        state.withLock { state in
            guard state.head == nil else { return }
            state.head = head
            state.body = head.body
        }
    }

    public func write(_ bytes: [UInt8]) {
        guard !ending.hasEnded else { return }
        state.withLock { $0.body += bytes }
    }

    public func finish() {
        let (waiters, result) = state.withLock { state in
            var response = state.head ?? HTTPResponse(status: .internalServerError)
            response.body = state.body
            let result = state.result ?? response
            state.result = result
            defer { state.waiters = [] }
            return (state.waiters, result)
        }
        for waiter in waiters { waiter.resume(returning: result) }
        end()
    }

    /// The client goes away: the `onEnd` handlers run and nothing more is kept.
    public func end() { ending.end() }

    public func onEnd(_ handler: @escaping @Sendable () -> Void) { ending.onEnd(handler) }

    public var hasEnded: Bool { ending.hasEnded }

    /// What was written so far: the head's status (nil before it opened) and the bytes.
    public var written: (status: HTTPStatus?, body: [UInt8]) {
        state.withLock { ($0.head?.status, $0.body) }
    }

    /// The head with everything written, once the stream has finished.
    public func response() async -> HTTPResponse {
        await withCheckedContinuation { continuation in
            let result: HTTPResponse? = state.withLock { state in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}
