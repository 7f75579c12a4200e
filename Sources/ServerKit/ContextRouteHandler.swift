import HTTP1
import WebSocket

/// How a surface's route runs: as HTTP1's `RouteHandler`, and with the request's ``RequestContext``.
public enum ContextRouteHandler: Sendable {
    /// Runs inline on the connection's event queue: only for cheap, non-blocking work.
    case immediate(@Sendable (HTTPRequest, RequestContext, RouteParameters) -> HTTPResponse)
    /// Short work run to completion on the event loop that read the request, well under a millisecond: an RSA-2048 or
    /// Ed25519 signature, an HMAC, a SQLite point read of a connection the calling thread owns. Never a PostgreSQL
    /// round trip, a write or a lock wait (those are `.completing` or `.deferred`). The answer is written from the loop,
    /// and the loop runs a bounded number of short requests per turn (`HTTPRoute.shortWork`), serving its other
    /// connections between them.
    case short(@Sendable (HTTPRequest, RequestContext, RouteParameters) -> HTTPResponse)
    /// Short work as ``short(_:)`` (on the loop that read the request, counted in its turn's budget) whose answer may
    /// come later through its completion, called exactly once from any thread: for short work that ends in a write
    /// queued to the database's writer (answered once it committed), or that hands a request it cannot answer on the
    /// loop to a task. It must not block.
    case shortCompleting(
        @Sendable (HTTPRequest, RequestContext, RouteParameters, _ completion: @escaping @Sendable (HTTPResponse) -> Void)
            -> Void)
    /// Runs in a Swift concurrency Task; may await the worker pool or storage.
    case deferred(@Sendable (HTTPRequest, RequestContext, RouteParameters) async -> HTTPResponse)
    /// Called on the event loop, where it must not block; answers by calling its completion exactly once, from any
    /// thread: for a handler that hands its work to a worker pool itself (`WorkerPool.submit`),
    /// so that no Swift concurrency task stands between the loop, the pool and the answer (a task to start, a
    /// continuation to resume, a cooperative thread to wake: tens of microseconds of a capability's CPU).
    case completing(
        @Sendable (HTTPRequest, RequestContext, RouteParameters, _ completion: @escaping @Sendable (HTTPResponse) -> Void)
            -> Void)
    /// Answers through a response writer (an open-ended `text/event-stream`, or a complete refusal). Called on the
    /// event loop: it must not block, so it starts a Task for its work.
    case stream(@Sendable (HTTPRequest, RequestContext, RouteParameters, any HTTPResponseWriter) -> Void)
    /// A WebSocket endpoint: called on the event loop once the opening handshake passed the server's checks
    /// (RFC 6455 §4.2, the allowed origins), with the handshake; it accepts (a subprotocol, and what to do with the
    /// channel once open) or refuses with a plain HTTP response. It must not block.
    case webSocket(@Sendable (HTTPRequest, RequestContext, RouteParameters, WebSocketHandshake.Request) -> WebSocketRouteAnswer)

    /// Whether this is short work (`.short`, `.shortCompleting`), which the loop budgets per turn (`HTTPRoute.shortWork`).
    public var isShort: Bool {
        switch self {
        case .short, .shortCompleting: return true
        default: return false
        }
    }

    /// The handler's response, awaited in the caller's task whatever its kind (tests, async callers). A stream's
    /// response is its head with everything written until it finished: only for streams that finish by themselves.
    public func response(
        to request: HTTPRequest, _ context: RequestContext, _ parameters: RouteParameters
    ) async -> HTTPResponse {
        switch self {
        case .immediate(let handler), .short(let handler): return handler(request, context, parameters)
        case .deferred(let handler): return await handler(request, context, parameters)
        case .completing(let handler), .shortCompleting(let handler):
            return await withCheckedContinuation { continuation in
                handler(request, context, parameters) { continuation.resume(returning: $0) }
            }
        case .stream(let handler):
            let writer = CollectingResponseWriter()
            handler(request, context, parameters, writer)
            return await writer.response()
        case .webSocket:
            // No connection to switch: what a plain request to the endpoint gets from the server.
            var response = HTTPResponse.json(
                HTTPStatus(code: 426, reason: "Upgrade Required"), #"{"error":"websocket_upgrade_required"}"#)
            response.headers.replaceOrAdd("Upgrade", "websocket")
            return response
        }
    }
}

/// The routes of the surfaces: found by HTTP1's table, run with the context the app resolved.
public typealias ContextRouter = RouteTable<ContextRouteHandler>
