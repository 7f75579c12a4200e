/// How a route's handler runs.
public enum RouteHandler: Sendable {
    /// Runs inline on the connection's event queue: only for cheap, non-blocking work.
    case immediate(@Sendable (HTTPRequest, RouteParameters) -> HTTPResponse)
    /// Runs in a Swift concurrency Task; may await the worker pool or storage.
    case deferred(@Sendable (HTTPRequest, RouteParameters) async -> HTTPResponse)

    /// Runs the handler the way its kind says: inline for `.immediate` (so `completion` is called before
    /// this returns), in a new Task for `.deferred`.
    public func run(
        _ request: HTTPRequest, _ parameters: RouteParameters,
        completion: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        switch self {
        case .immediate(let handler):
            completion(handler(request, parameters))
        case .deferred(let handler):
            Task { completion(await handler(request, parameters)) }
        }
    }
}

/// Routes whose handlers see only the request and its path parameters.
public typealias Router = RouteTable<RouteHandler>
