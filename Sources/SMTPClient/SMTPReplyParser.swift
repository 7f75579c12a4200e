/// Reads SMTP replies (RFC 5321 §4.2) out of the bytes a server sends, whatever the chunks: `250-` lines continue a
/// reply, a `250 ` line (or a bare `250`) ends it. Lines end with CRLF; a bare LF is taken as a line end too (what
/// servers send is read leniently, so long as the code is clear). A line past the limits or without a code is an
/// error, and after an error every later call throws the same error.
///
/// Pure: bytes in, replies out; the caller owns the socket.
public struct SMTPReplyParser: Sendable {
    /// The limits in force.
    public let limits: SMTPReplyLimits
    private var line: [UInt8] = []
    /// Lines of the reply being read, each after its code and separator.
    private var lines: [String] = []
    private var code: Int?
    private var enhancedStatus: String?
    private var failure: SMTPReplyError?

    /// A parser at the start of a reply.
    public init(limits: SMTPReplyLimits = SMTPReplyLimits()) {
        self.limits = limits
    }

    /// Whether bytes of a reply not yet complete are held (a server that sent something after its last complete
    /// reply: after `220` to `STARTTLS` that would be an injection, RFC 3207 §5).
    public var hasBufferedInput: Bool { !line.isEmpty || code != nil }

    /// Reads `bytes` and returns the replies they complete, in order.
    /// - Throws: ``SMTPReplyError`` when a line is malformed or past a limit, and again on every later call.
    public mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) throws(SMTPReplyError) -> [SMTPClientReply] {
        if let failure { throw failure }
        var replies: [SMTPClientReply] = []
        for byte in bytes {
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                if let reply = try endLine() { replies.append(reply) }
                continue
            }
            // Room for the CRLF within the limit.
            guard line.count < limits.maxLineLength - 1 else { throw fail(.lineTooLong) }
            line.append(byte)
        }
        return replies
    }

    private mutating func fail(_ error: SMTPReplyError) -> SMTPReplyError {
        failure = error
        return error
    }

    /// Parses the line just ended; a reply when it was the last line of one.
    private mutating func endLine() throws(SMTPReplyError) -> SMTPClientReply? {
        defer { line.removeAll(keepingCapacity: true) }
        guard line.count >= 3, let lineCode = SMTPReplyParser.code(line[0..<3]) else { throw fail(.malformedLine) }
        var isLast = true
        var textStart = 3
        if line.count > 3 {
            switch line[3] {
            case UInt8(ascii: " "): textStart = 4
            case UInt8(ascii: "-"): isLast = false; textStart = 4
            default: throw fail(.malformedLine)
            }
        }
        let textBytes = line[textStart...]
        guard !textBytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            throw fail(.malformedLine)
        }
        if let code, code != lineCode { throw fail(.inconsistentCode) }
        guard lines.count < limits.maxLines else { throw fail(.tooManyLines) }
        var text = String(decoding: textBytes, as: UTF8.self)
        if let status = SMTPReplyParser.enhancedStatus(of: text, codeClass: lineCode / 100) {
            if code == nil { enhancedStatus = status }
            text = String(text.dropFirst(status.count).drop(while: { $0 == " " }))
        }
        code = lineCode
        lines.append(text)
        guard isLast else { return nil }
        let reply = SMTPClientReply(code: lineCode, enhancedStatus: enhancedStatus, lines: lines)
        code = nil
        enhancedStatus = nil
        lines.removeAll()
        return reply
    }

    /// The code of three digits from `200` to `599` (RFC 5321 §4.2: the first digit 2 to 5, the second 0 to 5).
    private static func code(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard (200...599).contains(value), (value / 10) % 10 <= 5 else { return nil }
        return value
    }

    /// The RFC 3463 code that starts `text` (`class.subject.detail`, the class that of the reply, the subject and
    /// detail of one to three digits), when it is followed by a space or the end.
    static func enhancedStatus(of text: String, codeClass: Int) -> String? {
        let word = text.prefix { $0 != " " }
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == String(codeClass), codeClass != 3,
            parts[1...].allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        return String(word)
    }
}
