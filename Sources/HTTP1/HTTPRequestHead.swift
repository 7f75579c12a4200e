/// A parsed request head whose body has not been read yet.
///
/// The parser hands this out (as `HTTPParserEvent.head`) only when a body follows, so that the
/// caller can pick the body limit for the route and answer `Expect: 100-continue` before the body
/// is read.
public struct HTTPRequestHead: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The raw request-target.
    public var target: String
    /// The protocol version.
    public var version: HTTPVersion
    /// The header fields in order.
    public var headers: HTTPHeaders
    /// The declared body length; nil when the body is chunked.
    public var contentLength: Int?
    /// Whether the body uses `Transfer-Encoding: chunked`.
    public var isChunked: Bool
    /// Whether the client sent `Expect: 100-continue` (HTTP/1.1 only) and waits for `100 Continue`.
    public var expectsContinue: Bool
    /// Whether the connection may carry another request after this one.
    public var keepAlive: Bool

    /// The target's path without the query (not percent-decoded).
    public var path: String { HTTPRequest.split(target: target).path }
}

/// What the parser produced from the bytes given so far.
public enum HTTPParserEvent: Sendable {
    /// A head whose body is still to be read. Optionally call `setBodyLimit(_:)`, answer
    /// `100 Continue` when `expectsContinue`, then call `next()` again.
    case head(HTTPRequestHead)
    /// A complete request. `keepAlive` is false when the connection must close after the response.
    case request(HTTPRequest, keepAlive: Bool)
}
