import Synchronization
import WebSocket

/// A route's ``WebSocketHandler`` run without a connection, as the server runs it: what the handler sends is kept,
/// what the client sends is handed in, and the socket's end (the handler's close, the client's, the handler
/// returning or throwing) ends `inbound` and cancels the handler's task.
public final class WebSocketTestPeer: Sendable {
    private struct State {
        var sent: [WebSocketMessage] = []
        var closed: (code: WebSocketCloseCode, reason: String)?
        var task: Task<Void, Never>?
        var taken = 0
    }
    private let state = Mutex(State())
    private let input: AsyncStream<WebSocketMessage>.Continuation

    /// Starts `handler` on a socket of its own.
    public init(_ handler: @escaping WebSocketHandler) {
        let (messages, input) = AsyncStream.makeStream(of: WebSocketMessage.self)
        self.input = input
        let outbound = WebSocketOutbound { [weak self] command in self?.perform(command) }
        let task = Task { [weak self] in
            var code = WebSocketCloseCode.normal
            do { try await handler(WebSocketInbound(messages) { _ in }, outbound) } catch { code = .internalError }
            self?.end(code, "")
        }
        state.withLock { $0.task = task }
    }

    private func perform(_ command: WebSocketOutbound.Command) {
        switch command {
        case .send(let message): state.withLock { if $0.closed == nil { $0.sent.append(message) } }
        case .close(let code, let reason): end(code, reason)
        }
    }

    /// The socket stops being open with `code` (the first end counts).
    private func end(_ code: WebSocketCloseCode, _ reason: String) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.closed == nil else { return nil }
            state.closed = (code, reason)
            return state.task
        }
        input.finish()
        task?.cancel()
    }

    /// Plays the client sending `text`.
    public func receive(_ text: String) { input.yield(.text(text)) }

    /// Plays the client closing the socket with `code`.
    public func clientCloses(_ code: WebSocketCloseCode = .normal) { end(code, "") }

    /// Whether the socket has stopped being open.
    public var isClosed: Bool { state.withLock { $0.closed != nil } }
    /// How the socket ended, once it has.
    public var closed: (code: WebSocketCloseCode, reason: String)? { state.withLock { $0.closed } }

    /// The next message the handler sent, waiting up to `seconds`; nil when none came.
    public func nextMessage(within seconds: Double = 30) async throws -> WebSocketMessage? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let message = state.withLock { state -> WebSocketMessage? in
                guard state.taken < state.sent.count else { return nil }
                defer { state.taken += 1 }
                return state.sent[state.taken]
            }
            if let message { return message }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Waits for the handler to return (after the socket's end cancelled it, when it did).
    public func handlerEnded() async {
        await state.withLock { $0.task }?.value
    }

    /// Waits up to `seconds` for the socket to stop being open.
    public func waitForClose(within seconds: Double = 30) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !isClosed && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }
}
