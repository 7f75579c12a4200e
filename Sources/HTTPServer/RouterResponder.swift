import HTTP1

/// An `HTTPResponder` that answers from a `Router`: immediate handlers inline on the event loop,
/// deferred ones in a Task; 404 and 405 (with `Allow`) as `{"error":"<code>"}` JSON.
public struct RouterResponder: HTTPResponder {
    /// The routes answered.
    public let router: Router

    /// Creates a responder over `router`.
    public init(router: Router) {
        self.router = router
    }

    /// The router's match for the request.
    public func route(method: HTTPMethod, path: String) -> RouteMatch<RouteHandler> {
        router.match(method: method, path: path)
    }

    /// The matched route's `bodyLimit`, or nil (server default) when none matches.
    public func bodyLimit(of route: RouteMatch<RouteHandler>) -> Int? {
        if case .found(let route, _) = route { return route.bodyLimit }
        return nil
    }

    /// Runs the matched handler, or answers 404/405.
    public func respond(
        to request: HTTPRequest, route: RouteMatch<RouteHandler>, completion: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        switch route {
        case .found(let route, let parameters):
            route.handler.run(request, parameters, completion: completion)
        case .methodNotAllowed(let allowed):
            var response = refusal(.methodNotAllowed, path: request.path)
            response.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            completion(response)
        case .notFound:
            completion(refusal(.notFound, path: request.path))
        }
    }
}
