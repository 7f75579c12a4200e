import MailDoor
import SASL

/// One POP3 response (RFC 1939 §3): a status line (`+OK`/`-ERR`, with RFC 2449's response code), a multi-line
/// answer, or a SASL challenge (`+ base64`, RFC 5034).
public enum POP3Response: Sendable, Equatable {
    case ok(String)
    case error(POP3ResponseCode?, String)
    /// `+OK text`, then each line dot-stuffed, then `.`.
    case multiline(String, [[UInt8]])
    /// `+OK text`, then `content` dot-stuffed (its line ends made CRLF), then `.`.
    case content(String, [UInt8])
    case challenge(SASLMessage)

    /// The response's bytes, CRLF included.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        func line(_ text: String) {
            for byte in text.utf8 { out.append(byte == ASCII.cr || byte == ASCII.lf ? ASCII.space : byte) }
            out += [ASCII.cr, ASCII.lf]
        }
        switch self {
        case .ok(let text):
            line(text.isEmpty ? "+OK" : "+OK " + text)
        case .error(let code, let text):
            line("-ERR " + (code.map { "[\($0.rawValue)] " } ?? "") + text)
        case .challenge(let message):
            line("+ " + message.base64)
        case .multiline(let text, let lines):
            line("+OK " + text)
            for body in lines { Self.stuff(body, into: &out) }
            out += Array(".\r\n".utf8)
        case .content(let text, let content):
            line("+OK " + text)
            Self.stuff(content, into: &out)
            out += Array(".\r\n".utf8)
        }
        return out
    }

    /// Appends `bytes` line by line: a line starting with `.` gets another, every line ends in CRLF (a bare LF
    /// becomes CRLF, a last line without an end gets one).
    static func stuff(_ bytes: [UInt8], into out: inout [UInt8]) {
        var start = 0
        while start < bytes.count {
            var end = bytes[start...].firstIndex(of: ASCII.lf) ?? bytes.count
            let next = end + 1
            if end > start && bytes[end - 1] == ASCII.cr { end -= 1 }
            if bytes[start] == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            out += bytes[start..<end]
            out += [ASCII.cr, ASCII.lf]
            start = next
        }
    }
}

/// RFC 2449 §8 and RFC 3206's extended response codes.
public enum POP3ResponseCode: String, Sendable, Equatable {
    case inUse = "IN-USE"
    case loginDelay = "LOGIN-DELAY"
    case systemTemporary = "SYS/TEMP"
    case systemPermanent = "SYS/PERM"
    case auth = "AUTH"
}
