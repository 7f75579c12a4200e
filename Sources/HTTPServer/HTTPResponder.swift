import HTTP1
import SocketServer

/// What routing found for a request, as the server carries it from the request's head to `respond`.
public struct HTTPRoute: Sendable {
    /// The body limit of the route; nil for the parser limits' default.
    public var bodyLimit: Int?
    /// The responder's own result (a matched handler and its parameters, or why none matched).
    public var match: any Sendable
    /// What the access log calls the route: its template (`/api/accounts/{id}`), never the path.
    public var logName: String
    /// Whether the route's work is short, run to completion on the loop that read the request and costing far more
    /// than routing (a signature, an HMAC, a point read of a SQLite connection the loop's thread owns: well under a
    /// millisecond). A loop answers at most `HTTPServerConfiguration.shortRequestsPerTurn` such requests in a turn and
    /// puts the rest off to its next turns, so that its other connections are served between them. A short route
    /// answers `.now` (or `.later`). Default false.
    public var shortWork = false

    /// Pairs a responder's match with the body limit it implies and its name in the access log.
    public init(bodyLimit: Int?, match: any Sendable, logName: String = "unmatched") {
        self.bodyLimit = bodyLimit
        self.match = match
        self.logName = logName
    }
}

/// A responder's answer to one request.
public enum HTTPAnswer: Sendable {
    /// Work that produces a response: called once, on the event loop, with a completion to call exactly once
    /// from any thread.
    public typealias Work = @Sendable (_ completion: @escaping @Sendable (HTTPResponse) -> Void) -> Void

    /// The response, known at once: the server encodes it in the same loop turn, with no job or completion.
    case now(HTTPResponse)
    /// The response comes later, from `Work` the server starts.
    case later(Work)
    /// An open-ended response (`text/event-stream`): `StreamWork` is called once, on the event loop, with the
    /// writer it answers or streams through from any thread. The stream is the connection's last response.
    case stream(StreamWork)
    /// Switch the connection to another protocol (`101 Switching Protocols`, a WebSocket): when the request is the
    /// only one in flight, the head goes out and the connection, its output and the bytes read after the request
    /// belong to the machine `HTTPUpgrade.makeMachine` makes; otherwise (requests before it unanswered, shutdown) it
    /// is answered 503 in its turn and the connection stays HTTP.
    case upgrade(HTTPUpgrade)
    /// Decide later whether to switch (credentials checked in storage): `UpgradeWork` is called once, on the event
    /// loop, with a completion to call exactly once from any thread with a response (the connection stays HTTP) or
    /// an upgrade (taken as `.upgrade` is, in the turn the decision arrives). Until then the connection reads and
    /// parses nothing after the request, and nothing is written for it: a refusal never follows a `101`.
    case decideUpgrade(UpgradeWork)

    /// Work that answers through a response writer.
    public typealias StreamWork = @Sendable (_ writer: any HTTPResponseWriter) -> Void
    /// Work that decides a protocol switch.
    public typealias UpgradeWork = @Sendable (_ completion: @escaping @Sendable (HTTPUpgradeDecision) -> Void) -> Void
}

/// What `HTTPAnswer.decideUpgrade`'s work decided.
public enum HTTPUpgradeDecision: Sendable {
    /// Stay HTTP and answer with the response (a 401, a 403...).
    case respond(HTTPResponse)
    /// Switch, as `HTTPAnswer.upgrade`.
    case upgrade(HTTPUpgrade)
}

/// A protocol switch a responder answers with (`HTTPAnswer.upgrade`). A class, so that the answer every request
/// returns stays one response wide (`HTTPAnswer`'s largest case is `.now`'s).
public final class HTTPUpgrade: Sendable {
    /// The `101 Switching Protocols` head: its fields (`Upgrade`, the new protocol's own) go out with
    /// `Connection: Upgrade`.
    public let response: HTTPResponse
    /// Makes the connection's machine from then on, on the connection's loop, in the turn of the switch.
    public let makeMachine: @Sendable (HTTPUpgradeHandoff) -> any ConnectionStateMachine

    /// A switch answering with `response` to a machine `makeMachine` makes.
    public init(
        response: HTTPResponse, makeMachine: @escaping @Sendable (HTTPUpgradeHandoff) -> any ConnectionStateMachine
    ) {
        self.response = response
        self.makeMachine = makeMachine
    }
}

/// What an HTTP connection hands the protocol it switches to.
public struct HTTPUpgradeHandoff {
    /// The connection's output (the `101` head, not yet written, first), back-pressure and what the loop was told.
    public var lifecycle: ConnectionLifecycle
    /// Bytes the client sent after the request, already read: the new protocol's first input.
    public var input: [UInt8]
    /// The client's address (IP address text).
    public var peer: String
}

/// What the server calls for each request. Called on an event loop; must not block.
///
/// A request is routed once, when its head is complete (`route(method:path:)`); the route decides
/// the body limit before the body is read and goes with that request, and no other, to `respond`.
///
/// The protocol has no associated types on purpose: the server's connection code stays concrete,
/// so it is compiled specialized in its own module rather than run as unspecialized generic code
/// from the module that supplies the responder (see docs/performance.md, "Hot path").
///
/// A class: the server calls it through an existential several times per request, and a class
/// existential is copied with one retain where a struct's would retain every field.
public protocol HTTPResponder: AnyObject, Sendable {
    /// Routes a request by method and path; called once per request, on its loop, when its head is complete.
    func route(method: HTTPMethod, path: String) -> HTTPRoute

    /// The answer to a request, given the route `route(method:path:)` found for it: `.now` when it is known at
    /// once on the event loop (no storage, no CPU pool, no task), else `.later` with the work that produces it.
    /// Called once per request, on the loop; must not block. Responses are written in request order whenever
    /// they complete.
    func respond(to request: HTTPRequest, route: HTTPRoute) -> HTTPAnswer

    /// The body of a refusal the server answers by itself (400 malformed, 408, 413, 414, 431, 501, 505,
    /// 503 over the connection cap), so that each surface keeps its error shape. `path` is the request's
    /// path when its head was parsed, nil otherwise. The server adds `Connection: close`.
    func refusal(_ status: HTTPStatus, path: String?) -> HTTPResponse

    /// Told once per answered request, on its loop, what its access-log line says (whether or not access is
    /// logged), when its response is encoded: for metrics. The duration runs from the loop turn that read the
    /// request's last bytes to the responder's answer, read once for the log and this. `loop` is the index of the
    /// event loop that answered (each loop calls from its own thread). Must not block.
    func answered(_ entry: HTTPAccessLog.Entry, loop: Int)
}

extension HTTPResponder {
    /// `{"error":"<code>"}`, the code being the reason phrase in snake case (`content_too_large`).
    public func refusal(_ status: HTTPStatus, path: String?) -> HTTPResponse {
        HTTPResponse.json(status, #"{"error":"\#(HTTPResponse.errorCode(status))"}"#)
    }

    /// Nothing: a responder without metrics needs no report.
    public func answered(_ entry: HTTPAccessLog.Entry, loop: Int) {}
}

extension HTTPResponse {
    /// The reason phrase of `status` in snake case: `Content Too Large` → `content_too_large`.
    public static func errorCode(_ status: HTTPStatus) -> String {
        String(status.reason.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
