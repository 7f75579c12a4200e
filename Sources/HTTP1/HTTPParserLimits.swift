/// Every limit the request parser enforces, with the status each refusal gets.
///
/// No buffer in the parser grows past these numbers: a request that would need more is refused
/// and its connection closed. Defaults suit an auth API (small JSON bodies, small headers).
public struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line in bytes, CRLF excluded. Default 8192 (8 KiB). Longer: 414 URI Too Long.
    public var maxRequestLineLength: Int = 8 * 1024
    /// Largest header block in bytes: every header line with its CRLF plus the final empty line,
    /// the request line excluded. Default 16384 (16 KiB). Larger: 431.
    public var maxHeaderBlockLength: Int = 16 * 1024
    /// Most header fields in one request. Default 100. More: 431.
    public var maxHeaderCount: Int = 100
    /// Largest body in bytes after de-chunking, unless the route overrides it for one request
    /// (`HTTPRequestParser.setBodyLimit(_:)`). Default 65536 (64 KiB). Larger: 413, refused from
    /// `Content-Length` before any body byte is read.
    public var maxBodyLength: Int = 64 * 1024
    /// Most hex digits in a chunk size, leading zeros included. Default 8 (sizes below 4 GiB). More: 400.
    public var maxChunkSizeDigits: Int = 8
    /// Longest chunk extension (everything after the size up to CRLF) in bytes. Default 256. Longer: 400.
    public var maxChunkExtensionLength: Int = 256
    /// Largest trailer section (ignored, but read) in bytes. Default 4096. Larger: 431.
    public var maxTrailerLength: Int = 4 * 1024
    /// Most empty lines skipped before a request line (RFC 9112 §2.2 robustness). Default 8. More: 400.
    public var maxLeadingEmptyLines: Int = 8

    /// The defaults listed on each property.
    public init() {}

    /// Creates limits with some values changed from the defaults.
    public init(
        maxRequestLineLength: Int = 8 * 1024, maxHeaderBlockLength: Int = 16 * 1024, maxHeaderCount: Int = 100,
        maxBodyLength: Int = 64 * 1024, maxChunkSizeDigits: Int = 8, maxChunkExtensionLength: Int = 256,
        maxTrailerLength: Int = 4 * 1024
    ) {
        self.maxRequestLineLength = maxRequestLineLength
        self.maxHeaderBlockLength = maxHeaderBlockLength
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyLength = maxBodyLength
        self.maxChunkSizeDigits = min(maxChunkSizeDigits, 15)
        self.maxChunkExtensionLength = maxChunkExtensionLength
        self.maxTrailerLength = maxTrailerLength
    }
}
