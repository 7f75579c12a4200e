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
}
