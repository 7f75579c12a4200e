/// One SMTP reply as it travels between targets (RFC 5321 §4.2): its basic code, its RFC 3463 enhanced code when it
/// has one of the same class, and its text on one line. A decision reads ``code`` and ``enhanced``; ``text`` is for
/// display (`deliveryStatus`, a DSN's `Diagnostic-Code`, the operator's queue listing) only.
///
/// Replies Postern writes itself for a failure that had none (no connection, no mail exchanger, a local refusal) have
/// the same shape, so that one display serves both.
public struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    /// The three-digit code, 200 to 599.
    public let code: Int
    /// The enhanced status code, nil when the reply had none (or one of another class than ``code``).
    public let enhanced: EnhancedStatusCode?
    /// The reply's text on one line: control characters (line ends included) are spaces, at most 512 bytes.
    public let text: String

    /// A reply.
    /// - Parameters:
    ///   - code: the basic code, 200 to 599 (clamped into that range).
    ///   - enhanced: the enhanced code; dropped unless its class is the code's.
    ///   - text: any text: it is made one line (see ``text``).
    public init(code: Int, enhanced: EnhancedStatusCode? = nil, text: String) {
        self.code = min(max(code, 200), 599)
        self.enhanced = enhanced?.statusClass == self.code / 100 ? enhanced : nil
        self.text = Self.oneLine(text)
    }

    /// A reply Postern writes itself: `code`, the enhanced code's three numbers, `text`.
    public init(_ code: Int, _ enhanced: (Int, Int, Int), _ text: String) {
        self.init(
            code: code,
            enhanced: EnhancedStatusCode(statusClass: enhanced.0, subject: enhanced.1, detail: enhanced.2), text: text)
    }

    /// `2` positive completion, `3` intermediate, `4` transient failure, `5` permanent failure.
    public var codeClass: Int { code / 100 }

    /// The reply on one line: `550 5.1.1 No such user`.
    public var description: String {
        var parts = [String(code)]
        if let enhanced { parts.append(enhanced.description) }
        if !text.isEmpty { parts.append(text) }
        return parts.joined(separator: " ")
    }

    /// Control characters (line ends included) become spaces; at most 512 bytes.
    public static func oneLine(_ text: String) -> String {
        let cleaned = String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
        return cleaned.utf8.count <= 512 ? cleaned : String(decoding: cleaned.utf8.prefix(509), as: UTF8.self) + "..."
    }
}
