/// One SMTP command line, parsed: the verb and its checked arguments. Pure; sees a line without its
/// line end, never a socket.
enum SMTPCommand: Equatable {
    case helo(domain: String)
    case ehlo(domain: String)
    /// `MAIL FROM:<path>`; `path` is empty for the null reverse path. `declaredSize` is the `SIZE=` value, `dsn` the
    /// RFC 3461 parameters (taken only where `DSN` is offered; the session answers 555 elsewhere).
    case mail(path: String, declaredSize: Int?, dsn: SMTPMailParameters = SMTPMailParameters())
    /// `RCPT TO:<path>` with its RFC 3461 parameters (likewise).
    case rcpt(path: String, dsn: SMTPRecipientParameters = SMTPRecipientParameters())
    case data
    case rset
    case noop
    case quit
    case vrfy
    /// `STARTTLS` (RFC 3207), without arguments.
    case starttls
    /// `AUTH <mechanism> [initial-response]` (RFC 4954); the mechanism upper-cased, the response as sent.
    case auth(mechanism: String, initialResponse: String?)
    /// Commands this server knows and does not offer (EXPN, HELP, ...; STARTTLS and AUTH where they are not
    /// offered): 502.
    case notImplemented
    /// A command that is not SMTP: 500.
    case unknown
    /// A known verb with arguments it cannot take; the reply says which form is expected.
    case invalid(SMTPReply)

    /// Longest path in `MAIL FROM` or `RCPT TO`, brackets excluded (RFC 5321 §4.5.3.1.3: 256 with them).
    static var maxPathLength: Int { 254 }

    /// Parses `line` (the bytes before CRLF).
    static func parse(_ line: ArraySlice<UInt8>) -> SMTPCommand {
        let verbEnd = line.firstIndex(of: UInt8(ascii: " ")) ?? line.endIndex
        let verb = String(decoding: line[line.startIndex..<verbEnd], as: UTF8.self).uppercased()
        let rest = line[verbEnd...].drop { $0 == UInt8(ascii: " ") }
        switch verb {
        case "HELO", "EHLO":
            guard let domain = token(rest) else { return .invalid(.syntax("\(verb) hostname")) }
            return verb == "HELO" ? .helo(domain: domain) : .ehlo(domain: domain)
        case "MAIL":
            return parseMail(rest)
        case "RCPT":
            guard let (path, parameters) = pathArgument(rest, keyword: "TO:"), !path.isEmpty else {
                return .invalid(.syntax("RCPT TO:<address>"))
            }
            return parseRecipientParameters(path, parameters)
        case "DATA", "RSET", "QUIT":
            guard rest.isEmpty else { return .invalid(.syntax(verb)) }
            return verb == "DATA" ? .data : verb == "RSET" ? .rset : .quit
        case "NOOP":
            return .noop  // RFC 5321 §4.1.1.9: a parameter is allowed and ignored
        case "VRFY":
            return rest.isEmpty ? .invalid(.syntax("VRFY address")) : .vrfy
        case "STARTTLS":
            return rest.isEmpty ? .starttls : .invalid(.syntax("STARTTLS"))
        case "AUTH":
            let words = rest.split(separator: UInt8(ascii: " "))
            guard (1...2).contains(words.count), words.allSatisfy({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F } })
            else { return .invalid(.syntax("AUTH mechanism [initial-response]")) }
            return .auth(
                mechanism: String(decoding: words[0], as: UTF8.self).uppercased(),
                initialResponse: words.count == 2 ? String(decoding: words[1], as: UTF8.self) : nil)
        case "EXPN", "HELP", "TURN", "ETRN", "BDAT", "ATRN", "SEND", "SOML", "SAML":
            return .notImplemented
        default:
            return .unknown
        }
    }

    private static func parseMail(_ rest: ArraySlice<UInt8>) -> SMTPCommand {
        guard let (path, parameters) = pathArgument(rest, keyword: "FROM:") else {
            return .invalid(.syntax("MAIL FROM:<address>"))
        }
        var declaredSize: Int?
        var dsn = SMTPMailParameters()
        var seen = Set<String>()
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            let keyword = parts[0].uppercased()
            guard seen.insert(keyword).inserted else { return .invalid(.syntax("MAIL FROM:<address> [parameters]")) }
            switch (keyword, parts.count == 2 ? parts[1] : nil) {
            case ("SIZE", let value?):
                guard value.utf8.count <= 18, let size = Int(value), size >= 0 else {
                    return .invalid(.syntax("MAIL FROM:<address> SIZE=<bytes>"))
                }
                declaredSize = size
            case ("BODY", let value?) where ["7BIT", "8BITMIME"].contains(value.uppercased()):
                continue
            case ("AUTH", _?):
                continue  // RFC 4954 §5: the submitter's identity as a relay asserts it; the session's own AUTH decides
            case ("RET", let value?):
                guard let ret = SMTPMailParameters.Return(rawValue: value.uppercased()) else {
                    return .invalid(.syntax("MAIL FROM:<address> RET=FULL|HDRS"))
                }
                dsn.ret = ret
            case ("ENVID", let value?):
                guard value.utf8.count <= SMTPDSN.maxEnvelopeID, let id = SMTPDSN.xtext(value) else {
                    return .invalid(.syntax("MAIL FROM:<address> ENVID=<xtext>"))
                }
                dsn.envelopeID = id
            default:
                return .invalid(.unsupportedParameter)
            }
        }
        return .mail(path: path, declaredSize: declaredSize, dsn: dsn)
    }

    /// `RCPT TO`'s parameters: RFC 3461's `NOTIFY` and `ORCPT`, each at most once; any other is unsupported.
    private static func parseRecipientParameters(_ path: String, _ parameters: [String]) -> SMTPCommand {
        var dsn = SMTPRecipientParameters()
        var seen = Set<String>()
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            let keyword = parts[0].uppercased()
            guard seen.insert(keyword).inserted else { return .invalid(.syntax("RCPT TO:<address> [parameters]")) }
            switch (keyword, parts.count == 2 ? parts[1] : nil) {
            case ("NOTIFY", let value?):
                guard let notify = SMTPDSN.notify(value) else {
                    return .invalid(.syntax("RCPT TO:<address> NOTIFY=NEVER|SUCCESS,FAILURE,DELAY"))
                }
                dsn.notify = notify
            case ("ORCPT", let value?):
                guard let original = SMTPDSN.originalRecipient(value) else {
                    return .invalid(.syntax("RCPT TO:<address> ORCPT=<type>;<xtext>"))
                }
                dsn.originalRecipient = original
            default:
                return .invalid(.unsupportedParameter)
            }
        }
        return .rcpt(path: path, dsn: dsn)
    }

    /// The first space-separated word of `bytes`, when it is printable ASCII.
    private static func token(_ bytes: ArraySlice<UInt8>) -> String? {
        let word = bytes.prefix { $0 != UInt8(ascii: " ") }
        guard !word.isEmpty, word.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: word, as: UTF8.self)
    }

    /// `FROM:<path> PARAM=VALUE ...` (keyword case-insensitive; spaces after the colon and a path
    /// without brackets tolerated, as sloppy clients send them): the path without brackets and source
    /// route, and the parameters. Nil when malformed.
    private static func pathArgument(_ bytes: ArraySlice<UInt8>, keyword: String) -> (String, [String])? {
        let keywordBytes = Array(keyword.utf8)
        guard bytes.count >= keywordBytes.count,
            zip(bytes.prefix(keywordBytes.count), keywordBytes).allSatisfy({ asciiUppercased($0) == $1 })
        else { return nil }
        let afterKeyword = bytes.dropFirst(keywordBytes.count).drop { $0 == UInt8(ascii: " ") }
        let words = afterKeyword.split(separator: UInt8(ascii: " "))
        guard var pathBytes = words.first else { return nil }
        if pathBytes.first == UInt8(ascii: "<") {
            guard pathBytes.count >= 2, pathBytes.last == UInt8(ascii: ">") else { return nil }
            pathBytes = pathBytes.dropFirst().dropLast()
        }
        // A source route (`@relay,@relay:user@domain`) is to be ignored (RFC 5321 §4.1.1.3).
        if pathBytes.first == UInt8(ascii: "@") {
            guard let colon = pathBytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            pathBytes = pathBytes[(colon + 1)...]
        }
        guard pathBytes.count <= maxPathLength, isPath(pathBytes) else { return nil }
        let parameters = words.dropFirst().map { String(decoding: $0, as: UTF8.self) }
        guard
            parameters.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("=") && $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }
            )
        else { return nil }
        return (String(decoding: pathBytes, as: UTF8.self), parameters)
    }

    /// Empty (the null path), `local@domain`, or a bare `postmaster`, in printable ASCII without
    /// brackets. Quoted local parts with spaces are not taken.
    private static func isPath(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return true }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") })
        else { return false }
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else {
            return String(decoding: bytes, as: UTF8.self).lowercased() == "postmaster"
        }
        return at > bytes.startIndex && at < bytes.index(before: bytes.endIndex)
    }

    private static func asciiUppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }
}
