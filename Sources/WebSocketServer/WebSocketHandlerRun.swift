import Synchronization
import WebSocket

/// One run of a route's ``WebSocketHandler`` for a connection: its task, its `inbound` (fed on the loop, with the
/// unread bytes counted) and its `outbound` (each command travels to the connection's loop as a `Delivery`
/// completion, in the order given). When the handler returns or throws, a `Finished` completion says so.
///
/// Thread-safe: its state is behind a mutex; the poster it is given (`start`) hops to the loop by itself.
final class WebSocketHandlerRun: Sendable {
    /// One outbound command on its way to the connection, as a `ConnectionEvent.completed` value.
    final class Delivery: Sendable {
        let command: WebSocketOutbound.Command

        init(_ command: WebSocketOutbound.Command) {
            self.command = command
        }
    }

    /// The handler ended: `failed` when it threw.
    final class Finished: Sendable {
        let failed: Bool

        init(failed: Bool) {
            self.failed = failed
        }
    }

    private struct State {
        var post: (@Sendable (any AnyObject & Sendable) -> Void)?
        var task: Task<Void, Never>?
        var ended = false
        /// Payload bytes delivered and not yet read by the handler.
        var unread = 0
    }

    private let state = Mutex(State())
    private let messages: AsyncStream<WebSocketMessage>
    private let input: AsyncStream<WebSocketMessage>.Continuation

    init() {
        (messages, input) = AsyncStream.makeStream(of: WebSocketMessage.self)
    }

    /// Starts `handler` in a task, its commands posted with `post` (the connection's completion).
    func start(_ handler: @escaping WebSocketHandler, post: @escaping @Sendable (any AnyObject & Sendable) -> Void) {
        let inbound = WebSocketInbound(messages) { [self] message in
            state.withLock { $0.unread -= message.payloadCount }
        }
        let outbound = WebSocketOutbound { [self] command in send(Delivery(command)) }
        guard state.withLock({ state -> Bool in
            if !state.ended { state.post = post }
            return !state.ended
        }) else { return }
        let task = Task {
            var failed = false
            do { try await handler(inbound, outbound) } catch { failed = true }
            send(Finished(failed: failed))
        }
        let ended = state.withLock { state -> Bool in
            if !state.ended { state.task = task }
            return state.ended
        }
        if ended { task.cancel() }
    }

    /// A message from the client, on the loop; the bytes now unread.
    func deliver(_ message: WebSocketMessage) -> Int {
        let unread = state.withLock { state -> Int in
            state.unread += message.payloadCount
            return state.unread
        }
        input.yield(message)
        return unread
    }

    /// The socket is no longer open: `inbound` ends and the handler's task is cancelled (once).
    func end() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.post = nil
            defer { state.task = nil }
            return state.task
        }
        input.finish()
        task?.cancel()
    }

    private func send(_ value: any AnyObject & Sendable) {
        let post = state.withLock { $0.post }
        post?(value)
    }
}
