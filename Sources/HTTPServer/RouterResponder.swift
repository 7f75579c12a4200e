import HTTP1

/// An `HTTPResponder` that answers from a `Router`: immediate handlers at once on the event loop,
/// deferred ones in a Task; 404 and 405 (with `Allow`) as `{"error":"<code>"}` JSON.
public final class RouterResponder: HTTPResponder {
    /// The routes answered.
    public let router: Router

    /// Creates a responder over `router`.
    public init(router: Router) {
        self.router = router
    }

    /// The router's match for the request, with the matched route's body limit.
    public func route(method: HTTPMethod, path: String) -> HTTPRoute {
        HTTPRoute(routerMatch: router.match(method: method, path: path))
    }

    /// Immediate handlers, 404 and 405 (with `Allow`) at once; a deferred handler later, in a Task.
    public func respond(to request: HTTPRequest, route: HTTPRoute) -> HTTPAnswer {
        switch route.routerMatch(RouteHandler.self) {
        case .found(let route, let parameters):
            switch route.handler {
            case .immediate(let handler):
                return .now(handler(request, parameters))
            case .deferred(let handler):
                return .later { completion in Task { completion(await handler(request, parameters)) } }
            }
        case .methodNotAllowed(let allowed):
            var response = refusal(.methodNotAllowed, path: request.path)
            response.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            return .now(response)
        case .notFound:
            return .now(refusal(.notFound, path: request.path))
        }
    }
}

extension HTTPRoute {
    /// A route carrying `match`, with the matched route's body limit (nil when nothing matched).
    @inlinable
    public init<Handler: Sendable>(routerMatch match: RouteMatch<Handler>) {
        if case .found(let route, _) = match {
            self.init(bodyLimit: route.bodyLimit, match: match, logName: route.template)
        } else {
            self.init(bodyLimit: nil, match: match, logName: "unmatched")
        }
    }

    /// The router match this route carries; `.notFound` when it carries something else.
    @inlinable
    public func routerMatch<Handler: Sendable>(_ handler: Handler.Type) -> RouteMatch<Handler> {
        HTTPRoute.cast(match, to: RouteMatch<Handler>.self) ?? .notFound
    }

    /// `value as? Target`, without the runtime's general cast when `value` holds a `Target`. The existential is
    /// opened by passing it to a generic parameter, so that its dynamic type is compared with `Target` as one
    /// metadata pointer; with `value` typed `any Sendable` the comparison was never true and every request took
    /// the cast.
    @inlinable
    static func cast<Target>(_ value: any Sendable, to target: Target.Type) -> Target? {
        func opened<Value: Sendable>(_ value: Value) -> Target? {
            if Value.self == Target.self { return unsafeBitCast(value, to: Target.self) }
            return value as? Target
        }
        return opened(value)
    }
}
