import SMTPOutcomes

/// One complete reply from an SMTP server (RFC 5321 §4.2): its code, the enhanced status code (RFC 3463) when the
/// first line carries one, and the text of every line.
public struct SMTPClientReply: Sendable, Equatable, CustomStringConvertible {
    /// The three-digit reply code (`250`).
    public let code: Int
    /// The enhanced status code of the first line (`2.1.5`) when it has one whose class matches the reply's.
    public let enhancedStatus: String?
    /// The text of each line after the code and its separator, with the enhanced status code removed where a line
    /// starts with it. A reply of one bare code (`250`) has one empty line.
    public let lines: [String]

    /// A reply built from its parts (tests, and the driver's replies for local failures).
    public init(code: Int, enhancedStatus: String? = nil, lines: [String]) {
        self.code = code
        self.enhancedStatus = enhancedStatus
        self.lines = lines.isEmpty ? [""] : lines
    }

    /// `2` for a positive completion, `3` intermediate, `4` transient failure, `5` permanent failure.
    public var codeClass: Int { code / 100 }

    /// Whether the reply is a positive completion (`2xx`).
    public var isPositive: Bool { codeClass == 2 }
    /// Whether the reply is a transient failure (`4xx`): try again later.
    public var isTransient: Bool { codeClass == 4 }
    /// Whether the reply is a permanent failure (`5xx`).
    public var isPermanent: Bool { codeClass == 5 }

    /// The text of the lines joined by spaces.
    public var text: String { lines.joined(separator: " ") }

    /// The reply on one line, as a DSN's `Diagnostic-Code` or `smtpReply` shows it: `550 5.1.1 No such user`.
    public var description: String {
        var parts = [String(code)]
        if let enhancedStatus { parts.append(enhancedStatus) }
        let text = self.text
        if !text.isEmpty { parts.append(text) }
        return parts.joined(separator: " ")
    }

    /// The reply as it travels on (``SMTPReply``): the code, the enhanced code parsed, the lines' text on one line.
    public var reply: SMTPReply {
        SMTPReply(code: code, enhanced: enhancedStatus.flatMap { EnhancedStatusCode(parsing: $0) }, text: text)
    }
}
