import HTTP1

/// One open WebSocket as the application sees it: messages out, messages in, and its end. The server's connection
/// behind it keeps the protocol (frames, pings, the closing handshake, the send-queue limit).
///
/// Thread-safe: call from any thread; what is sent goes out in the order of the calls.
public protocol WebSocketChannel: AnyObject, Sendable {
    /// Sends `message`; nothing once the socket is closing. A reader that has let `maxQueuedBytes` pile up is
    /// closed with 1008 instead.
    func send(_ message: WebSocketMessage)

    /// Starts the closing handshake with `code` and `reason` (the client is told; the connection ends when it
    /// answers, or after the close timeout).
    func close(_ code: WebSocketCloseCode, reason: String)

    /// Calls `handler` on the connection's event loop with every message the client sends, in order, from now on.
    /// It must not block: it starts a task for anything slow.
    func onMessage(_ handler: @escaping @Sendable (WebSocketMessage) -> Void)

    /// Calls `handler` once, from any thread, when the socket has closed or will take no more (either side closed,
    /// the client went away, the server shut down); at once when that has happened already.
    func onClose(_ handler: @escaping @Sendable () -> Void)

    /// Whether the socket has closed (see `onClose`).
    var isClosed: Bool { get }
}

/// What a WebSocket route answers to a valid opening handshake.
public enum WebSocketRouteAnswer: Sendable {
    /// Switch protocols: `subprotocol` (one the client offered, or nil) is echoed, and `open` is called with the
    /// channel once the connection is a WebSocket. `open` runs on the event loop and must not block.
    case accept(subprotocol: String?, open: @Sendable (any WebSocketChannel) -> Void)
    /// Stay HTTP and answer with `response` (status, headers and body), e.g. 401 for missing credentials.
    case refuse(HTTPResponse)
    /// The decision needs work the event loop cannot wait on (credentials checked in storage): `decide` runs in a
    /// task and its answer is taken as if given at once. The connection reads nothing meanwhile, and no `101` goes
    /// out before the answer accepts: a refusal is an ordinary HTTP response.
    case later(@Sendable () async -> WebSocketRouteAnswer)
}
