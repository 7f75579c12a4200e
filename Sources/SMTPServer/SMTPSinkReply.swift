/// A reply the sink words itself, for what only it knows (a submission's refusals): the code (4xx or 5xx), RFC 3463's
/// enhanced status code and the text. The session sends it as one line, the text cut to printable ASCII so that
/// nothing in it can end the line early.
public struct SMTPSinkReply: Error, Sendable, Equatable {
    /// The three-digit reply code: 4xx (try later) or 5xx (final).
    public let code: Int
    /// RFC 3463's enhanced status code, `class.subject.detail`; its class is the code's first digit.
    public let enhanced: (subject: Int, detail: Int)
    /// What went wrong, for the person who sent.
    public let text: String

    /// - Parameters:
    ///   - code: 400 to 599.
    ///   - subject: the enhanced code's subject (`7` in `5.7.1`).
    ///   - detail: its detail (`1` in `5.7.1`).
    ///   - text: the words after the codes.
    public init(_ code: Int, _ subject: Int, _ detail: Int, _ text: String) {
        precondition((400...599).contains(code), "a sink's reply refuses: 4xx or 5xx")
        self.code = code
        enhanced = (subject, detail)
        self.text = text
    }

    /// The enhanced code as written, `5.7.1`.
    public var enhancedCode: String { "\(code / 100).\(enhanced.subject).\(enhanced.detail)" }

    public static func == (a: SMTPSinkReply, b: SMTPSinkReply) -> Bool {
        a.code == b.code && a.enhanced == b.enhanced && a.text == b.text
    }

    /// The reply line (without CRLF) as the session sends it.
    var reply: SMTPReply {
        let safe = String(decoding: text.utf8.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
        return SMTPReply(code, "\(enhancedCode) \(safe)")
    }
}
