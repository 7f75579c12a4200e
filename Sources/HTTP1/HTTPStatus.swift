/// A response status: the numeric code and the reason phrase sent on the status line.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit status code.
    public let code: Int
    /// The reason phrase; informative only, clients must not depend on it.
    public let reason: String

    /// Creates a status.
    /// - Parameters:
    ///   - code: the three-digit code (100...999).
    ///   - reason: the reason phrase; must not contain CR or LF (the encoder drops such characters).
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Creates a status with the standard reason phrase for `code` (or an empty one when unknown).
    public init(code: Int) {
        self.init(code: code, reason: HTTPStatus.standardReason(code))
    }

    /// `code reason`, as on the status line.
    public var description: String { "\(code) \(reason)" }

    /// 100 Continue (sent by the server for `Expect: 100-continue`).
    public static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    /// 200 OK
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    /// 201 Created
    public static let created = HTTPStatus(code: 201, reason: "Created")
    /// 202 Accepted
    public static let accepted = HTTPStatus(code: 202, reason: "Accepted")
    /// 204 No Content (never carries a body)
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    /// 302 Found
    public static let found = HTTPStatus(code: 302, reason: "Found")
    /// 303 See Other
    public static let seeOther = HTTPStatus(code: 303, reason: "See Other")
    /// 304 Not Modified (never carries a body)
    public static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    /// 400 Bad Request
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    /// 401 Unauthorized
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    /// 403 Forbidden
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    /// 404 Not Found
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    /// 405 Method Not Allowed (send `Allow`)
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    /// 408 Request Timeout
    public static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    /// 409 Conflict
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    /// 413 Content Too Large
    public static let payloadTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    /// 414 URI Too Long
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    /// 415 Unsupported Media Type
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    /// 417 Expectation Failed
    public static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    /// 422 Unprocessable Content
    public static let unprocessableEntity = HTTPStatus(code: 422, reason: "Unprocessable Content")
    /// 429 Too Many Requests
    public static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    /// 431 Request Header Fields Too Large
    public static let requestHeaderFieldsTooLarge = HTTPStatus(
        code: 431, reason: "Request Header Fields Too Large")
    /// 500 Internal Server Error
    public static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    /// 501 Not Implemented
    public static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    /// 503 Service Unavailable
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    /// 505 HTTP Version Not Supported
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")

    /// Whether a response with this status never has a body (1xx, 204, 304).
    public var forbidsBody: Bool { (100...199).contains(code) || code == 204 || code == 304 }

    static func standardReason(_ code: Int) -> String {
        switch code {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return ""
        }
    }
}
