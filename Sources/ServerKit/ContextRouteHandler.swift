import HTTP1

/// How a surface's route runs: as HTTP1's `RouteHandler`, and with the request's ``RequestContext``.
public enum ContextRouteHandler: Sendable {
    /// Runs inline on the connection's event queue: only for cheap, non-blocking work.
    case immediate(@Sendable (HTTPRequest, RequestContext, RouteParameters) -> HTTPResponse)
    /// Runs in a Swift concurrency Task; may await the worker pool or storage.
    case deferred(@Sendable (HTTPRequest, RequestContext, RouteParameters) async -> HTTPResponse)

    /// The handler's response, awaited in the caller's task whatever its kind (tests, async callers).
    public func response(
        to request: HTTPRequest, _ context: RequestContext, _ parameters: RouteParameters
    ) async -> HTTPResponse {
        switch self {
        case .immediate(let handler): handler(request, context, parameters)
        case .deferred(let handler): await handler(request, context, parameters)
        }
    }
}

/// The routes of the surfaces: found by HTTP1's table, run with the context the app resolved.
public typealias ContextRouter = RouteTable<ContextRouteHandler>
