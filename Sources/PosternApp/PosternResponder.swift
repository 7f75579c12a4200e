import ClientAddress
import HTTP1
import HTTPServer
import Logging
import ServerKit

/// The server's one responder: resolves the request's context (client address, rate-limit key, request
/// id) once, routes the request, runs its handler inline or in a task with that context, and records the
/// request's log line and metrics under its route template.
///
/// Unknown paths answer 404 and known paths with another method 405 with `Allow`, in the error shape
/// of the surface that owns the path prefix (``UnmatchedRenderer``), `{"error":"<code>"}` elsewhere.
final class PosternResponder: HTTPResponder {
    /// Renders a 404, 405 or HTTP-layer refusal body for paths under one prefix.
    struct UnmatchedRenderer: Sendable {
        let prefix: String
        let render: @Sendable (HTTPStatus) -> HTTPResponse
    }

    let router: ContextRouter
    let unmatched: [UnmatchedRenderer]
    /// `POSTERN_TRUSTED_PROXIES`: a request from a trusted proxy counts against the nearest untrusted
    /// `X-Forwarded-For` hop, for every surface (difficulty, rate limits).
    let trustedProxies: ClientAddressResolver
    let metrics: PosternMetrics
    /// Times each request for its latency histogram (the access-log line is timed by the HTTP server).
    let clock: MonotonicClock
    let logger: Logger

    init(
        router: ContextRouter, unmatched: [UnmatchedRenderer], trustedProxies: ClientAddressResolver,
        metrics: PosternMetrics, clock: MonotonicClock, logger: Logger
    ) {
        self.router = router
        self.unmatched = unmatched
        self.trustedProxies = trustedProxies
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
    }

    func route(method: HTTPMethod, path: String) -> HTTPRoute {
        HTTPRoute(routerMatch: router.match(method: method, path: path))
    }

    func respond(to request: HTTPRequest, route: HTTPRoute, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let start = clock.now
        switch route.routerMatch(ContextRouteHandler.self) {
        case .found(let route, let parameters):
            let context = RequestContext(request, trustedProxies: trustedProxies)
            // The completion keeps only what `finish` reads, not a copy of the whole request.
            let method = request.method
            let template = route.template
            route.handler.run(request, context, parameters) { [self] response in
                completion(finish(response, method, template, start))
            }
        case .methodNotAllowed(let allowed):
            var response = unmatchedResponse(.methodNotAllowed, path: request.path)
            response.headers.replaceOrAdd("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            completion(finish(response, request.method, "unmatched", start))
        case .notFound:
            completion(finish(unmatchedResponse(.notFound, path: request.path), request.method, "unmatched", start))
        }
    }

    /// A refusal of the HTTP layer (413, 431, malformed request...) in the shape of the surface that owns
    /// the path, when the path is known.
    func refusal(_ status: HTTPStatus, path: String?) -> HTTPResponse {
        unmatchedResponse(status, path: path ?? "")
    }

    private func unmatchedResponse(_ status: HTTPStatus, path: String) -> HTTPResponse {
        if let renderer = unmatched.first(where: { path.hasPrefix($0.prefix) }) {
            return renderer.render(status)
        }
        return .json(status, #"{"error":"\#(HTTPResponse.errorCode(status))"}"#)
    }

    private func finish(_ response: HTTPResponse, _ method: HTTPMethod, _ route: String, _ start: Int64)
        -> HTTPResponse
    {
        let elapsed = Duration.nanoseconds(clock.now - start)
        metrics.recordRequest(route: route, method: method, status: response.status.code,
                              duration: elapsed)
        // The access-log line is written by the HTTP server (HTTPAccessLog), gathered per event loop.
        return response
    }
}
