import HTTP1

/// An `HTTPResponder` that answers from a `Router`: immediate handlers inline on the event queue,
/// deferred ones in a Task; 404 and 405 (with `Allow`) as `{"error":"<code>"}` JSON.
public struct RouterResponder: HTTPResponder {
    /// The routes answered.
    public let router: Router

    /// Creates a responder over `router`.
    public init(router: Router) {
        self.router = router
    }

    /// The matched route's `bodyLimit`, or nil (server default) when none matches.
    public func bodyLimit(method: HTTPMethod, path: String) -> Int? {
        router.bodyLimit(method: method, path: path)
    }

    /// Runs the matched handler, or answers 404/405.
    public func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        switch router.match(method: request.method, path: request.path) {
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
