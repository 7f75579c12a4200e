/// The header section of a message that is about to be sent, read strictly enough that every RFC 5322 reader finds
/// the same fields in it: each line ends CRLF; no NUL, bare CR or bare LF anywhere in it; each field starts with a
/// name of printable ASCII and a colon (no white space before the colon, RFC 5322 §4.5's obsolete form); a folded
/// line starts with white space and holds more than white space; no line passes 998 octets; every value is UTF-8.
///
/// Lenient readers disagree exactly where this refuses: one ends a line at a bare CR that another keeps as text
/// (the line after it is a field to one and part of the field before to the other), one takes `From : x` that
/// another skips, one ends the header at a line of spaces. Checking a sender against a header that some receiver
/// reads differently checks nothing, so a submission's header is read here or refused. Pure: bytes in.
public struct HeaderSection: Sendable, Equatable {
    /// One field: its name as written and its value unfolded (the CRLF before each folded line removed).
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    /// The fields in order.
    public let fields: [Field]

    /// The longest line RFC 5322 §2.1.1 allows, without its CRLF.
    public static let maximumLineLength = 998

    /// Reads the header section of `message`: everything before the first empty line (the whole message when it
    /// has none).
    /// - Throws: ``HeaderSectionError`` naming the rule and the line (1-based).
    public init(message: [UInt8]) throws(HeaderSectionError) {
        var fields: [(name: String, value: [UInt8])] = []
        var position = 0
        var line = 0
        while position < message.count {
            line += 1
            var end = position
            while end < message.count {
                switch message[end] {
                case 0: throw HeaderSectionError(.nul, line: line)
                case 13:
                    guard end + 1 < message.count, message[end + 1] == 10 else {
                        throw HeaderSectionError(.bareCR, line: line)
                    }
                case 10: throw HeaderSectionError(.bareLF, line: line)
                default:
                    end += 1
                    continue
                }
                break
            }
            let text = message[position..<end]
            position = min(end + 2, message.count)
            if text.isEmpty { break }  // the empty line: the body follows
            guard text.count <= Self.maximumLineLength else { throw HeaderSectionError(.lineTooLong, line: line) }
            if text.first == 0x20 || text.first == 0x09 {
                guard !fields.isEmpty else { throw HeaderSectionError(.startsFolded, line: line) }
                guard text.contains(where: { $0 != 0x20 && $0 != 0x09 }) else {
                    throw HeaderSectionError(.whiteSpaceLine, line: line)
                }
                fields[fields.count - 1].value += text
                continue
            }
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else {
                throw HeaderSectionError(.noColon, line: line)
            }
            let name = text[..<colon]
            guard !name.isEmpty, name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw HeaderSectionError(.badName, line: line)
            }
            fields.append((String(decoding: name, as: UTF8.self), Array(text[(colon + 1)...])))
        }
        var read: [Field] = []
        for (index, field) in fields.enumerated() {
            guard let value = String(validating: field.value, as: UTF8.self) else {
                throw HeaderSectionError(.notUTF8, line: index + 1)
            }
            read.append(Field(name: field.name, value: value))
        }
        self.fields = read
    }

    /// The values of every field named `name` (any case), in order.
    public func values(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}

/// Why a header section was refused, and on which line. Its text names the rule, never the bytes.
public struct HeaderSectionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Equatable {
        case nul = "a NUL byte"
        case bareCR = "a CR that does not end a line"
        case bareLF = "a line feed without its CR"
        case lineTooLong = "a line over 998 octets"
        case startsFolded = "a folded line before any field"
        case whiteSpaceLine = "a line of white space alone"
        case noColon = "a line that is no field"
        case badName = "a field name that is not printable ASCII"
        case notUTF8 = "a field that is not UTF-8"
    }

    public let reason: Reason
    /// The line, from 1; for ``Reason/notUTF8``, the field, from 1.
    public let line: Int

    init(_ reason: Reason, line: Int) {
        self.reason = reason
        self.line = line
    }

    public var description: String { "\(reason.rawValue) on line \(line)" }
}
