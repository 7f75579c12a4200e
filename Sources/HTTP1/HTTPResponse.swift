/// A response produced by a handler: status, headers and body.
///
/// Handlers set `Content-Type` and their own headers. The server adds `Content-Length`, `Date`,
/// `Server`, `X-Content-Type-Options`, `X-Request-Id` and `Connection`, and drops the body for `HEAD`.
public struct HTTPResponse: Sendable {
    /// The status line's code and reason.
    public var status: HTTPStatus
    /// The handler's header fields.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with `Content-Type` and room for three more fields: handlers often add some
    /// (`Cache-Control`, `Authorization`, `Location`), and each add to a list made for one field
    /// reallocated it.
    init(status: HTTPStatus, contentType: String, body: [UInt8]) {
        var headers = HTTPHeaders(reservingCapacity: 4)
        headers.add("Content-Type", contentType)
        self.init(status: status, headers: headers, body: body)
    }

    /// A JSON response with `Content-Type: application/json; charset=utf-8`.
    /// - Parameters:
    ///   - status: the status.
    ///   - body: serialized JSON bytes (not checked).
    public static func json(_ status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: body)
    }

    /// A JSON response with `Content-Type: application/json; charset=utf-8`.
    /// - Parameters:
    ///   - status: the status.
    ///   - text: serialized JSON text (not checked).
    public static func json(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        json(status, Array(text.utf8))
    }

    /// A plain-text response with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// An HTML response with `Content-Type: text/html; charset=utf-8`.
    public static func html(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(text.utf8))
    }
}
