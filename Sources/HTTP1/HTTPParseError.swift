/// Why the parser refused a request. Each code maps to the status sent back before the connection
/// is closed; the code itself is for logs and tests, never for the client.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Code: String, Sendable, Equatable {
        /// Request line longer than `maxRequestLineLength` (414).
        case requestLineTooLong
        /// Header block larger than `maxHeaderBlockLength` (431).
        case headerBlockTooLarge
        /// More than `maxHeaderCount` fields (431).
        case tooManyHeaders
        /// Trailer section larger than `maxTrailerLength` (431).
        case trailersTooLarge
        /// Body larger than the limit for this request (413).
        case bodyTooLarge
        /// Request line not `method SP target SP version` (400).
        case invalidRequestLine
        /// Method not a token (400).
        case invalidMethod
        /// Request-target not in origin, absolute or asterisk form, or with forbidden bytes (400).
        case invalidTarget
        /// Version not `HTTP/d.d` (400).
        case invalidVersion
        /// Well-formed version other than 1.0 and 1.1 (505).
        case unsupportedVersion
        /// Header name not a token (includes whitespace before the colon) or no colon (400).
        case invalidHeaderName
        /// Header value with a control character such as NUL (400).
        case invalidHeaderValue
        /// A header line starting with whitespace: obsolete line folding (400).
        case obsoleteLineFolding
        /// LF not preceded by CR, or CR not followed by LF (400).
        case bareLineEnding
        /// `Content-Length` not plain digits, or out of range (400).
        case invalidContentLength
        /// `Content-Length` repeated or a list (400).
        case duplicateContentLength
        /// `Content-Length` together with `Transfer-Encoding` (400).
        case contentLengthWithTransferEncoding
        /// A transfer coding other than `chunked` (501).
        case unsupportedTransferCoding
        /// `Transfer-Encoding` empty, or `chunked` repeated or not last (400).
        case invalidTransferEncoding
        /// No `Host` on HTTP/1.1 (400).
        case missingHost
        /// More than one `Host` (400).
        case duplicateHost
        /// A `Host` that is not `uri-host [":" port]` (RFC 9110 section 7.2), such as one with userinfo
        /// (`u@h`) or a path (400).
        case invalidHost
        /// Chunk size empty, not hex, or too many digits (400).
        case invalidChunkSize
        /// Chunk extension longer than `maxChunkExtensionLength` or with control bytes (400).
        case invalidChunkExtension
        /// Chunk data not followed by CRLF (400).
        case invalidChunkFraming
        /// `Expect` with anything but `100-continue` (417).
        case unsupportedExpectation
        /// Too many empty lines before the request line (400).
        case tooManyEmptyLines
    }

    /// What was wrong.
    public let code: Code

    /// Creates an error.
    public init(_ code: Code) {
        self.code = code
    }

    /// The status to answer with; the connection is closed after it in every case.
    public var status: HTTPStatus {
        switch code {
        case .requestLineTooLong: return .uriTooLong
        case .headerBlockTooLarge, .tooManyHeaders, .trailersTooLarge: return .requestHeaderFieldsTooLarge
        case .bodyTooLarge: return .payloadTooLarge
        case .unsupportedVersion: return .httpVersionNotSupported
        case .unsupportedTransferCoding: return .notImplemented
        case .unsupportedExpectation: return .expectationFailed
        default: return .badRequest
        }
    }

    /// The code's name, for logs.
    public var description: String { "HTTPParseError.\(code.rawValue)" }
}
