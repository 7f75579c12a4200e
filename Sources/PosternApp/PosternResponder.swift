import BrowserPages
import ClientAddress
import HTTP1
import HTTPServer
import Logging
import ServerKit
import WebSocketServer
import ServerMetrics

/// The server's one responder: resolves the request's context (client address, rate-limit key, request
/// id) once, routes the request, runs its handler inline or in a task with that context, and records the
/// request's metrics under its route template when the server reports it answered (the access-log line is the
/// server's, with the same route, status and duration).
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
    /// Checks WebSocket routes' handshakes and switches their connections.
    let webSockets: WebSocketUpgrader
    let logger: Logger

    init(
        router: ContextRouter, unmatched: [UnmatchedRenderer], trustedProxies: ClientAddressResolver,
        metrics: PosternMetrics, webSockets: WebSocketUpgrader, logger: Logger
    ) {
        self.router = router
        self.unmatched = unmatched
        self.trustedProxies = trustedProxies
        self.metrics = metrics
        self.webSockets = webSockets
        self.logger = logger
    }

    /// The router's match; a `.short` or `.shortCompleting` handler's route is marked short work, which the loop
    /// budgets per turn.
    func route(method: HTTPMethod, path: String) -> HTTPRoute {
        let match = router.match(method: method, path: path)
        guard case .found(let matched, _) = match else { return HTTPRoute(routerMatch: match) }
        var route = HTTPRoute(bodyLimit: matched.bodyLimit, match: match, logName: matched.template)
        route.shortWork = matched.handler.isShort
        return route
    }

    /// Immediate and short handlers, 404 and 405 at once, on the event loop; a deferred handler later, in a Task; a completing
    /// one later, through its completion.
    func respond(to request: HTTPRequest, route: HTTPRoute) -> HTTPAnswer {
        switch route.routerMatch(ContextRouteHandler.self) {
        case .found(let matched, let parameters):
            switch matched.handler {
            case .immediate(let handler), .short(let handler):
                let context = RequestContext(request, trustedProxies: trustedProxies)
                return .now(handler(request, context, parameters))
            case .deferred(let handler):
                return .later { [self] completion in
                    let context = RequestContext(request, trustedProxies: trustedProxies)
                    Task { completion(await handler(request, context, parameters)) }
                }
            case .completing(let handler), .shortCompleting(let handler):
                return .later { [self] completion in
                    handler(request, RequestContext(request, trustedProxies: trustedProxies), parameters, completion)
                }
            case .stream(let handler):
                return .stream { [self] writer in
                    handler(request, RequestContext(request, trustedProxies: trustedProxies), parameters, writer)
                }
            case .webSocket(let handler):
                return webSockets.answer(request) { handshake in
                    handler(request, RequestContext(request, trustedProxies: trustedProxies), parameters, handshake)
                }
            }
        case .methodNotAllowed(let allowed):
            var response = unmatchedResponse(.methodNotAllowed, path: request.path)
            response.headers.replaceOrAdd("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            return .now(response)
        case .notFound:
            if wantsPage(request, path: request.path) { return .now(Self.notFoundPage) }
            return .now(unmatchedResponse(.notFound, path: request.path))
        }
    }

    /// Metrics under the route's `logName` (its template, or `unmatched`), the name its access-log line has,
    /// with the line's duration.
    func answered(_ entry: HTTPAccessLog.Entry, loop: Int) {
        metrics.recordRequest(
            route: entry.route, method: entry.method, status: entry.status, nanoseconds: entry.durationNanoseconds,
            loop: loop)
    }

    /// A refusal of the HTTP layer (413, 431, malformed request...) in the shape of the surface that owns
    /// the path, when the path is known.
    func refusal(_ status: HTTPStatus, path: String?) -> HTTPResponse {
        unmatchedResponse(status, path: path ?? "")
    }

    /// Whether an unknown path's 404 is a page: a browser's navigation (`Accept` names `text/html`) to a path no API
    /// surface's error shape owns (issue 68). An API client, which names no `text/html`, gets the JSON it always did.
    private func wantsPage(_ request: HTTPRequest, path: String) -> Bool {
        guard request.method == .GET || request.method == .HEAD,
            !unmatched.contains(where: { path.hasPrefix($0.prefix) }),
            let accept = request.headers["Accept"]
        else { return false }
        return accept.split(separator: ",").contains { range in
            range.split(separator: ";").first.map { ASCII.trimmed($0).lowercased() } == "text/html"
        }
    }

    /// The 404 page of an unknown page, with the way home.
    private static let notFoundPage = HTMLPage.response(
        .notFound,
        BrowserPage.document(
            title: "Not found",
            main: HTML.notice("There is no page at this address.", .error) + "<p><a href=\"/\" id=\"home\">Home</a></p>"))

    private func unmatchedResponse(_ status: HTTPStatus, path: String) -> HTTPResponse {
        if let renderer = unmatched.first(where: { path.hasPrefix($0.prefix) }) {
            return renderer.render(status)
        }
        return .json(status, #"{"error":"\#(HTTPResponse.errorCode(status))"}"#)
    }
}
