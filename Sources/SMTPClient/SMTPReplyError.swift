/// Why the bytes from a server are not an SMTP reply. Each ends the session: the client cannot tell what the server
/// meant, so it assumes nothing was accepted.
public enum SMTPReplyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line does not start with a three-digit code from `200` to `599` followed by a space, a hyphen or the line's
    /// end, or has a control character other than a tab.
    case malformedLine
    /// A continuation line carries another code than the reply's first line.
    case inconsistentCode
    /// A line is longer than ``SMTPReplyLimits/maxLineLength``.
    case lineTooLong
    /// A reply has more lines than ``SMTPReplyLimits/maxLines``.
    case tooManyLines

    /// A short description for logs and delivery status (never the server's bytes).
    public var description: String {
        switch self {
        case .malformedLine: return "malformed reply line"
        case .inconsistentCode: return "reply lines with different codes"
        case .lineTooLong: return "reply line too long"
        case .tooManyLines: return "reply with too many lines"
        }
    }
}
