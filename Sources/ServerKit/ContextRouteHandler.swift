import HTTP1

/// How a surface's route runs: as HTTP1's `RouteHandler`, and with the request's ``RequestContext``.
public enum ContextRouteHandler: Sendable {
    /// Runs inline on the connection's event queue: only for cheap, non-blocking work.
    case immediate(@Sendable (HTTPRequest, RequestContext, RouteParameters) -> HTTPResponse)
    /// Runs in a Swift concurrency Task; may await the worker pool or storage.
    case deferred(@Sendable (HTTPRequest, RequestContext, RouteParameters) async -> HTTPResponse)
    /// Answers through a response writer (an open-ended `text/event-stream`, or a complete refusal). Called on the
    /// event loop: it must not block, so it starts a Task for its work.
    case stream(@Sendable (HTTPRequest, RequestContext, RouteParameters, any HTTPResponseWriter) -> Void)

    /// The handler's response, awaited in the caller's task whatever its kind (tests, async callers). A stream's
    /// response is its head with everything written until it finished: only for streams that finish by themselves.
    public func response(
        to request: HTTPRequest, _ context: RequestContext, _ parameters: RouteParameters
    ) async -> HTTPResponse {
        switch self {
        case .immediate(let handler): return handler(request, context, parameters)
        case .deferred(let handler): return await handler(request, context, parameters)
        case .stream(let handler):
            let writer = CollectingResponseWriter()
            handler(request, context, parameters, writer)
            return await writer.response()
        }
    }
}

/// The routes of the surfaces: found by HTTP1's table, run with the context the app resolved.
public typealias ContextRouter = RouteTable<ContextRouteHandler>
