/// Every limit of the MIME parser, in one place. Past a limit the parser throws (``MIMEError``); everything
/// else that is malformed degrades instead (a broken boundary, an unknown charset or transfer encoding).
public struct MIMELimits: Sendable, Equatable {
    /// Largest message, in bytes. Default 25 MiB (SMTP's default size limit).
    public var maximumMessageBytes: Int
    /// Largest header block of one part, in bytes. Default 256 KiB.
    public var maximumHeaderBytes: Int
    /// Most header fields in one part. Default 1000.
    public var maximumHeaderCount: Int
    /// Deepest multipart nesting. Default 16.
    public var maximumDepth: Int
    /// Most parts in the whole message. Default 1000.
    public var maximumParts: Int

    /// The default limits.
    public static let `default` = MIMELimits()

    public init(
        maximumMessageBytes: Int = 25 * 1024 * 1024, maximumHeaderBytes: Int = 256 * 1024,
        maximumHeaderCount: Int = 1000, maximumDepth: Int = 16, maximumParts: Int = 1000
    ) {
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumHeaderBytes = maximumHeaderBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumDepth = maximumDepth
        self.maximumParts = maximumParts
    }
}

/// A limit of ``MIMELimits`` was passed.
public enum MIMEError: Error, Sendable, Equatable {
    case messageTooLarge
    case headerTooLarge
    case tooManyHeaders
    case tooDeep
    case tooManyParts
}
