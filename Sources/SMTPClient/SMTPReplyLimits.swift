/// How much of a server's reply the client reads before it gives up on the server.
public struct SMTPReplyLimits: Sendable, Equatable {
    /// Longest reply line, CRLF included. Default 2048: RFC 5321 §4.5.3.1.5 allows 512, and real servers send
    /// longer lines (Exchange's and Gmail's diagnostics) that would be a pity to refuse.
    public var maxLineLength: Int = 2048
    /// Most lines in one multi-line reply. Default 100: an `EHLO` answer has a line per extension, a few dozen at most.
    public var maxLines: Int = 100

    /// The defaults listed on each property.
    public init() {}

    /// Limits with both values given.
    public init(maxLineLength: Int, maxLines: Int) {
        self.maxLineLength = maxLineLength
        self.maxLines = maxLines
    }
}
