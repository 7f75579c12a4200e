import MailDoor
import SASL

/// One POP3 command, parsed (RFC 1939 §4–§7, RFC 2449's CAPA, RFC 5034's AUTH, RFC 2595's STLS).
public enum POP3Command: Sendable, Equatable {
    case user(String)
    /// `PASS`: the rest of the line, spaces included.
    case pass(String)
    /// `APOP`: not supported (its MD5 digest needs the password in the clear on the server).
    case apop
    /// `AUTH [mechanism [initial-response]]`; with no mechanism, the list of mechanisms.
    case auth(mechanism: String?, initialResponse: SASLMessage?)
    case stls, capa, quit, stat, noop, rset
    /// `LIST [msg]`, `UIDL [msg]`.
    case list(Int?)
    case uidl(Int?)
    case retr(Int)
    case dele(Int)
    /// `TOP msg n`: the header and the first `lines` lines of the body.
    case top(Int, lines: Int)

    /// Parses one command line (its CRLF removed).
    /// - Throws: ``POP3CommandError``.
    public static func parse(_ line: [UInt8]) throws(POP3CommandError) -> POP3Command {
        let space = line.firstIndex(of: ASCII.space) ?? line.count
        let keyword = String(decoding: line[..<space].map(ASCII.upper), as: UTF8.self)
        let rest = space < line.count ? Array(line[(space + 1)...]) : []
        let arguments =
            space < line.count
            ? rest.split(separator: ASCII.space, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            : []
        func count(_ allowed: ClosedRange<Int>) throws(POP3CommandError) {
            guard allowed.contains(arguments.count), !arguments.contains(where: \.isEmpty) else { throw .arguments }
        }
        func number(_ index: Int) throws(POP3CommandError) -> Int {
            let text = arguments[index]
            guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy(ASCII.isDigit), let value = Int(text),
                value > 0 || index == 1
            else { throw .arguments }
            return value
        }
        switch keyword {
        case "USER":
            try count(1...1)
            return .user(arguments[0])
        case "PASS":
            guard !rest.isEmpty else { throw .arguments }
            return .pass(String(decoding: rest, as: UTF8.self))
        case "APOP": return .apop
        case "AUTH":
            try count(0...2)
            guard !arguments.isEmpty else { return .auth(mechanism: nil, initialResponse: nil) }
            let mechanism = arguments[0].uppercased()
            guard arguments.count == 2 else { return .auth(mechanism: mechanism, initialResponse: nil) }
            guard let response = SASLMessage(line: Array(arguments[1].utf8)) else { throw .arguments }
            return .auth(mechanism: mechanism, initialResponse: response)
        case "STLS", "CAPA", "QUIT", "STAT", "NOOP", "RSET":
            try count(0...0)
            switch keyword {
            case "STLS": return .stls
            case "CAPA": return .capa
            case "QUIT": return .quit
            case "STAT": return .stat
            case "NOOP": return .noop
            default: return .rset
            }
        case "LIST", "UIDL":
            try count(0...1)
            let message = arguments.isEmpty ? nil : try number(0)
            return keyword == "LIST" ? .list(message) : .uidl(message)
        case "RETR", "DELE":
            try count(1...1)
            return keyword == "RETR" ? .retr(try number(0)) : .dele(try number(0))
        case "TOP":
            try count(2...2)
            return .top(try number(0), lines: try number(1))
        default:
            throw .unknownCommand
        }
    }
}

/// Why a POP3 command line was refused; each answered `-ERR` with its fixed ``text``.
public enum POP3CommandError: Error, Sendable, Equatable {
    case lineTooLong, unknownCommand, arguments, wrongState

    /// The fixed text of the `-ERR` response.
    public var text: String {
        switch self {
        case .lineTooLong: return "Line too long"
        case .unknownCommand: return "Unknown command"
        case .arguments: return "Invalid arguments"
        case .wrongState: return "Command not allowed now"
        }
    }
}
