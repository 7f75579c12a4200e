import HTTP1

/// What the server calls for each complete request. Called on an event queue; must not block.
public protocol HTTPResponder: Sendable {
    /// Body limit for this request head (per-route override), nil = limits default. Called before the body is read.
    func bodyLimit(method: HTTPMethod, path: String) -> Int?
    /// Produce the response; call `completion` exactly once, from any thread.
    ///
    /// Calling it before returning (on the event queue) is the fast path: the response is written
    /// without a thread hop. Later calls are written in request order.
    func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void)
    /// The body of a refusal the server answers by itself (400 malformed, 408, 413, 414, 431, 501, 505,
    /// 503 over the connection cap), so that each surface keeps its error shape. `path` is the request's
    /// path when its head was parsed, nil otherwise. The server adds `Connection: close`.
    func refusal(_ status: HTTPStatus, path: String?) -> HTTPResponse
}

extension HTTPResponder {
    /// `{"error":"<code>"}`, the code being the reason phrase in snake case (`content_too_large`).
    public func refusal(_ status: HTTPStatus, path: String?) -> HTTPResponse {
        HTTPResponse.json(status, #"{"error":"\#(HTTPResponse.errorCode(status))"}"#)
    }
}

extension HTTPResponse {
    /// The reason phrase of `status` in snake case: `Content Too Large` → `content_too_large`.
    public static func errorCode(_ status: HTTPStatus) -> String {
        String(status.reason.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
