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
        if case .found(let route, _) = router.match(method: method, path: path) { return route.bodyLimit }
        return nil
    }

    /// Runs the matched handler, or answers 404/405.
    public func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        switch router.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            switch route.handler {
            case .immediate(let handler):
                completion(handler(request, parameters))
            case .deferred(let handler):
                Task { completion(await handler(request, parameters)) }
            }
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.json(.methodNotAllowed, #"{"error":"method_not_allowed"}"#)
            response.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            completion(response)
        case .notFound:
            completion(.json(.notFound, #"{"error":"not_found"}"#))
        }
    }
}
