import HTTP1

/// What a WebSocket route answers to a valid opening handshake.
public enum WebSocketRouteAnswer: Sendable {
    /// Switch protocols: `subprotocol` (one the client offered, or nil) is echoed, and `handler` runs once the
    /// connection is a WebSocket, the socket open as long as it runs (see ``WebSocketHandler``).
    case accept(subprotocol: String?, handler: WebSocketHandler)
    /// Stay HTTP and answer with `response` (status, headers and body), e.g. 401 for missing credentials.
    case refuse(HTTPResponse)
    /// The decision needs work the event loop cannot wait on (credentials checked in storage): `decide` runs in a
    /// task and its answer is taken as if given at once. The connection reads nothing meanwhile, and no `101` goes
    /// out before the answer accepts: a refusal is an ordinary HTTP response.
    case later(@Sendable () async -> WebSocketRouteAnswer)
}
