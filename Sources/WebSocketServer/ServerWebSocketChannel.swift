import Synchronization
import WebSocket

/// The server's `WebSocketChannel`: what the application sends travels to the connection's loop as `Delivery`
/// completions, in the order sent; what the client sends comes back through `deliver` on the loop.
///
/// Thread-safe: its state is behind a mutex; the poster it is given (`attach`) hops to the loop by itself.
final class ServerWebSocketChannel: WebSocketChannel {
    /// What the application asked for.
    enum Request: Sendable {
        case send(WebSocketMessage)
        case close(WebSocketCloseCode, String)
    }

    /// One request on its way to the connection, as a `ConnectionEvent.completed` value.
    final class Delivery: Sendable {
        let request: Request

        init(_ request: Request) {
            self.request = request
        }
    }

    private struct State {
        var post: (@Sendable (any AnyObject & Sendable) -> Void)?
        var closed = false
        var closeHandlers: [@Sendable () -> Void] = []
        var messageHandler: (@Sendable (WebSocketMessage) -> Void)?
        /// Messages that arrived before a handler was set, handed to the first one.
        var early: [WebSocketMessage] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Gives the channel the way to its connection (the service's completion).
    func attach(_ post: @escaping @Sendable (any AnyObject & Sendable) -> Void) {
        state.withLock { if !$0.closed { $0.post = post } }
    }

    func send(_ message: WebSocketMessage) { post(.send(message)) }

    func close(_ code: WebSocketCloseCode, reason: String) { post(.close(code, reason)) }

    func onMessage(_ handler: @escaping @Sendable (WebSocketMessage) -> Void) {
        let early = state.withLock { state -> [WebSocketMessage] in
            state.messageHandler = handler
            defer { state.early = [] }
            return state.early
        }
        for message in early { handler(message) }
    }

    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let closed = state.withLock { state -> Bool in
            if !state.closed { state.closeHandlers.append(handler) }
            return state.closed
        }
        if closed { handler() }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// A message from the client, on the loop.
    func deliver(_ message: WebSocketMessage) {
        let handler = state.withLock { state -> (@Sendable (WebSocketMessage) -> Void)? in
            if state.messageHandler == nil { state.early.append(message) }
            return state.messageHandler
        }
        handler?(message)
    }

    /// The socket takes nothing more: runs the close handlers once.
    func ended() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            state.post = nil
            state.messageHandler = nil
            state.early = []
            defer { state.closeHandlers = [] }
            return state.closeHandlers
        }
        for handler in handlers { handler() }
    }

    private func post(_ request: Request) {
        let post = state.withLock { $0.post }
        post?(Delivery(request))
    }
}
