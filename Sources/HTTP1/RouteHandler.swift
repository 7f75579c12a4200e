/// How a route's handler runs.
public enum RouteHandler: Sendable {
    /// Runs inline on the connection's event queue: only for cheap, non-blocking work.
    case immediate(@Sendable (HTTPRequest, RouteParameters) -> HTTPResponse)
    /// Runs in a Swift concurrency Task; may await the worker pool or storage.
    case deferred(@Sendable (HTTPRequest, RouteParameters) async -> HTTPResponse)
}

/// Routes whose handlers see only the request and its path parameters.
public typealias Router = RouteTable<RouteHandler>
