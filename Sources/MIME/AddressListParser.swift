/// The strict reader of RFC 5322 §3.4 address fields (`From`, `Sender`, `Reply-To`, `To`, `Cc`), with RFC 6532's
/// UTF-8 in atoms and quoted strings: quoted strings, nested comments, groups, the obsolete route and phrase forms of
/// §4.4; and nothing else. A bare address's trailing comment is its display name (`user@host (Real Name)`), a source
/// route is kept beside the address it precedes (``MailAddress/route``). Every address field whose meaning decides something (who a submission is from, whom a
/// reply goes to, what an owner typed in the web inbox) is read here, so that Postern reads a field the way a
/// receiver's RFC 5322 parser does or refuses it.
///
/// Where lenient readers disagree with each other, this one refuses: anything but comments and white space after a
/// mailbox's `>` or `addr-spec` (`<a@x> <b@y>`, `<a@x> "<b@y>"`: some readers take the first address, some the
/// last), a control character (CR, LF and NUL among them), an unbalanced quote, comment or bracket, an empty
/// `<>`. A quoted local part that is a plain dot-atom is given unquoted (`"a"@x` is `a@x`, RFC 5321 §4.1.2), so that
/// two spellings of one mailbox compare equal.
///
/// Pure: text in, values out. The value given is the field's unfolded value (the header reader removes the CRLF
/// before folding white space).
public enum AddressListParser {
    /// An `address-list` (`To`, `Cc`, `Reply-To`, `Bcc`): mailboxes and groups, at least one address, empty members
    /// between commas allowed (`obs-addr-list`).
    /// - Throws: ``AddressListError`` naming what was found where.
    public static func addressList(_ value: some StringProtocol) throws(AddressListError) -> [ParsedAddress] {
        var parser = Parser(Array(value.utf8))
        let addresses = try parser.list(allowGroups: true)
        guard !addresses.isEmpty else { throw AddressListError(.empty, at: 0) }
        return addresses
    }

    /// A `mailbox-list` (`From`): one or more mailboxes, no group.
    /// - Throws: ``AddressListError``; ``AddressListError/Reason/groupNotAllowed`` for a group.
    public static func mailboxList(_ value: some StringProtocol) throws(AddressListError) -> [MailAddress] {
        var parser = Parser(Array(value.utf8))
        let addresses = try parser.list(allowGroups: false)
        guard !addresses.isEmpty else { throw AddressListError(.empty, at: 0) }
        return addresses.flatMap(\.mailboxes)
    }

    /// One `mailbox` (`Sender`).
    /// - Throws: ``AddressListError``; ``AddressListError/Reason/notOneMailbox`` for a list.
    public static func mailbox(_ value: some StringProtocol) throws(AddressListError) -> MailAddress {
        let list = try mailboxList(value)
        guard list.count == 1 else { throw AddressListError(.notOneMailbox, at: 0) }
        return list[0]
    }

    /// Whether `text` is a bare `addr-spec` of the form an envelope and a header both carry unquoted: a dot-atom
    /// local part, `@`, a dot-atom domain, at most 254 bytes; no comment, quote, literal or white space.
    public static func isPlainAddress(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= 254, let at = bytes.firstIndex(of: UInt8(ascii: "@")) else { return false }
        return Parser.isDotAtom(bytes[..<at]) && Parser.isDotAtom(bytes[(at + 1)...])
    }
}

/// One member of an address list: a mailbox, or a named group of them (`team: a@x, b@y;`).
public enum ParsedAddress: Sendable, Equatable {
    case mailbox(MailAddress)
    case group(name: String, members: [MailAddress])

    /// The mailboxes it names: itself, or the group's members.
    public var mailboxes: [MailAddress] {
        switch self {
        case .mailbox(let address): [address]
        case .group(_, let members): members
        }
    }
}

/// Why an address field was refused, and at which byte of its value. Its text names the rule, never the value.
public struct AddressListError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Equatable {
        case empty = "no address"
        case controlCharacter = "a control character"
        case unterminatedQuote = "a quoted string without its closing quote"
        case unterminatedComment = "a comment without its closing parenthesis"
        case unterminatedLiteral = "a domain literal without its closing bracket"
        case unexpected = "a character where an address, a comma or the end was expected"
        case trailingText = "text after an address"
        case missingDomain = "an address without @domain"
        case badLocalPart = "a malformed local part"
        case badDomain = "a malformed domain"
        case groupNotAllowed = "a group where only mailboxes may be"
        case notOneMailbox = "more than one mailbox"
    }

    public let reason: Reason
    /// The byte offset in the value where it was found.
    public let offset: Int

    init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}

extension AddressListParser {
    /// A lexical item of an address field, CFWS already skipped around it.
    fileprivate enum Token: Equatable {
        case atom([UInt8])
        case quoted([UInt8])
        case literal([UInt8])  // `[...]`, brackets included
        case special(UInt8)  // one of `<>@,;:.`
        case end
    }

    fileprivate struct Parser {
        let bytes: [UInt8]
        var index = 0
        /// The token after ``index`` and where it starts, when it has been read.
        var peeked: (token: Token, start: Int, end: Int)?

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        // MARK: grammar

        /// `address *("," address)` with empty members allowed; `;` ends a group's list when `inGroup`.
        mutating func list(allowGroups: Bool) throws(AddressListError) -> [ParsedAddress] {
            var result: [ParsedAddress] = []
            while true {
                switch try peek().token {
                case .end: return result
                case .special(UInt8(ascii: ",")):
                    take()
                    continue
                default: break
                }
                result.append(try address(allowGroups: allowGroups))
                let (after, at, _) = try peek()
                switch after {
                case .end: return result
                case .special(UInt8(ascii: ",")): take()
                default: throw AddressListError(.trailingText, at: at)
                }
            }
        }

        /// `mailbox / group`.
        mutating func address(allowGroups: Bool) throws(AddressListError) -> ParsedAddress {
            let start = try peek().start
            let words = try phrase()
            let (token, at, _) = try peek()
            switch token {
            case .special(UInt8(ascii: "<")):
                return .mailbox(try angleAddress(name: words))
            case .special(UInt8(ascii: ":")) where !words.isEmpty:
                guard allowGroups else { throw AddressListError(.groupNotAllowed, at: at) }
                take()
                let members = try groupMembers()
                return .group(name: Self.displayName(words), members: members)
            case .special(UInt8(ascii: "@")) where !words.isEmpty:
                take()
                let local = try Self.localPart(words, at: start)
                let domain = try domain()
                return .mailbox(MailAddress(name: try trailingComment(), email: local + "@" + domain))
            case .end where !words.isEmpty:
                throw AddressListError(.missingDomain, at: at)
            default:
                throw AddressListError(.unexpected, at: at)
            }
        }

        /// After `name:`: `[mailbox-list / CFWS] ";"`, empty members allowed.
        mutating func groupMembers() throws(AddressListError) -> [MailAddress] {
            var members: [MailAddress] = []
            while true {
                let (token, at, _) = try peek()
                switch token {
                case .special(UInt8(ascii: ";")):
                    take()
                    return members
                case .special(UInt8(ascii: ",")):
                    take()
                case .end:
                    throw AddressListError(.unexpected, at: at)
                default:
                    guard case .mailbox(let member) = try address(allowGroups: false) else {
                        throw AddressListError(.groupNotAllowed, at: at)
                    }
                    members.append(member)
                    let (after, next, _) = try peek()
                    switch after {
                    case .special(UInt8(ascii: ",")), .special(UInt8(ascii: ";")): continue
                    case .end: throw AddressListError(.unexpected, at: next)
                    default: throw AddressListError(.trailingText, at: next)
                    }
                }
            }
        }

        /// `"<" [obs-route] addr-spec ">"`, the display name read before it.
        mutating func angleAddress(name: [Token]) throws(AddressListError) -> MailAddress {
            take()  // "<"
            var (token, at, _) = try peek()
            // obs-route: `@a.example,@b.example:` before the address, kept as `@a.example,@b.example` for IMAP's
            // ENVELOPE (RFC 3501 `adl`) and otherwise ignored, as RFC 5322 4.4 says.
            var route: [String] = []
            if token == .special(UInt8(ascii: "@")) {
                while token == .special(UInt8(ascii: "@")) || token == .special(UInt8(ascii: ",")) {
                    take()
                    if token == .special(UInt8(ascii: "@")) { route.append("@" + (try domain())) }
                    (token, at, _) = try peek()
                }
                guard token == .special(UInt8(ascii: ":")) else { throw AddressListError(.unexpected, at: at) }
                take()
                (token, at, _) = try peek()
            }
            let words = try phrase()
            guard !words.isEmpty else { throw AddressListError(.badLocalPart, at: at) }
            let (atSign, atPosition, _) = try peek()
            guard atSign == .special(UInt8(ascii: "@")) else { throw AddressListError(.missingDomain, at: atPosition) }
            take()
            let local = try Self.localPart(words, at: at)
            let domain = try domain()
            let (close, closeAt, _) = try peek()
            guard close == .special(UInt8(ascii: ">")) else { throw AddressListError(.unexpected, at: closeAt) }
            take()
            let display = Self.displayName(name)
            return MailAddress(
                name: display.isEmpty ? nil : display, email: local + "@" + domain,
                route: route.isEmpty ? nil : route.joined(separator: ","))
        }

        /// The display name of a bare `addr-spec` written as the comment right after it (`user@host (Real Name)`,
        /// RFC 8621 §4.1.2.3, as Dovecot reads it for IMAP's ENVELOPE): the last comment between the address and the
        /// token that follows, its quoted pairs resolved and encoded words decoded; nil when there is none or it is
        /// blank.
        mutating func trailingComment() throws(AddressListError) -> String? {
            let end = try peek().start
            var position = index
            var comment: Range<Int>?
            while position < end {
                guard bytes[position] == UInt8(ascii: "(") else {
                    position += 1
                    continue
                }
                let close = try commentEnd(from: position)
                comment = (position + 1)..<(close - 1)
                position = close
            }
            guard let comment else { return nil }
            var text: [UInt8] = []
            var escaped = false
            for byte in bytes[comment] {
                if byte == UInt8(ascii: "\\") && !escaped {
                    escaped = true
                    continue
                }
                escaped = false
                text.append(byte)
            }
            let name = EncodedWords.decode(String(decoding: text, as: UTF8.self)).trimmingSpaces()
            return name.isEmpty ? nil : name
        }

        /// Words and dots (`1*word` with `obs-phrase`'s dots), possibly none: a display name or a local part.
        mutating func phrase() throws(AddressListError) -> [Token] {
            var words: [Token] = []
            while true {
                let (token, _, _) = try peek()
                switch token {
                case .atom, .quoted, .special(UInt8(ascii: ".")):
                    words.append(token)
                    take()
                default: return words
                }
            }
        }

        /// `dot-atom / domain-literal` (with `obs-domain`'s comments between the atoms, already skipped).
        mutating func domain() throws(AddressListError) -> String {
            if case .literal(let text) = try peek().token {
                take()
                return String(decoding: text, as: UTF8.self)
            }
            var parts: [[UInt8]] = []
            var expectAtom = true
            while true {
                let (next, position, _) = try peek()
                switch next {
                case .atom(let text) where expectAtom:
                    parts.append(text)
                    expectAtom = false
                    take()
                case .special(UInt8(ascii: ".")) where !expectAtom:
                    expectAtom = true
                    take()
                default:
                    guard !parts.isEmpty, !expectAtom else { throw AddressListError(.badDomain, at: position) }
                    return parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
                }
            }
        }

        // MARK: words

        /// The local part of `words` (`word *("." word)`), unquoted when it is a dot-atom; quoted and escaped
        /// otherwise.
        static func localPart(_ words: [Token], at offset: Int) throws(AddressListError) -> String {
            var text: [UInt8] = []
            var quoted = false
            for (position, word) in words.enumerated() {
                switch word {
                case .atom(let atom) where position % 2 == 0: text += atom
                case .quoted(let content) where position % 2 == 0:
                    text += content
                    quoted = true
                case .special(UInt8(ascii: ".")) where position % 2 == 1: text.append(UInt8(ascii: "."))
                default: throw AddressListError(.badLocalPart, at: offset)
                }
            }
            guard words.count % 2 == 1 else { throw AddressListError(.badLocalPart, at: offset) }
            if !quoted || isDotAtom(text[...]) { return String(decoding: text, as: UTF8.self) }
            var escaped: [UInt8] = [UInt8(ascii: "\"")]
            for byte in text {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { escaped.append(UInt8(ascii: "\\")) }
                escaped.append(byte)
            }
            escaped.append(UInt8(ascii: "\""))
            return String(decoding: escaped, as: UTF8.self)
        }

        /// A display name: the words joined by one space (a dot of `obs-phrase` kept beside the word before it),
        /// encoded words decoded.
        static func displayName(_ words: [Token]) -> String {
            var text = ""
            for word in words {
                switch word {
                case .atom(let bytes), .quoted(let bytes):
                    if !text.isEmpty && !text.hasSuffix(" ") { text += " " }
                    text += String(decoding: bytes, as: UTF8.self)
                case .special(UInt8(ascii: ".")): text += ". "
                default: break
                }
            }
            return EncodedWords.decode(text).trimmingSpaces()
        }

        /// `dot-atom-text`: atoms joined by single dots.
        static func isDotAtom(_ bytes: ArraySlice<UInt8>) -> Bool {
            guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: "."), last != UInt8(ascii: ".")
            else { return false }
            var previousDot = false
            for byte in bytes {
                if byte == UInt8(ascii: ".") {
                    if previousDot { return false }
                    previousDot = true
                } else {
                    guard Self.isAtext(byte) else { return false }
                    previousDot = false
                }
            }
            return true
        }

        /// RFC 5322 `atext`, with RFC 6532's UTF-8 (any byte of a multi-byte sequence; the value was checked to be
        /// UTF-8 as a whole).
        static func isAtext(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), 0x80...0xFF:
                return true
            default:
                return "!#$%&'*+-/=?^_`{|}~".utf8.contains(byte)
            }
        }

        static func isControl(_ byte: UInt8) -> Bool {
            (byte < 0x20 && byte != 0x09) || byte == 0x7F
        }

        // MARK: tokens

        /// The next token after comments and white space, read once.
        mutating func peek() throws(AddressListError) -> (token: Token, start: Int, end: Int) {
            if let peeked { return peeked }
            let start = try skipCFWS(from: index)
            let read = try token(at: start)
            peeked = (read.token, start, read.end)
            return peeked!
        }

        /// Moves past the token ``peek()`` read.
        mutating func take() {
            guard let peeked else { return }
            index = peeked.end
            self.peeked = nil
        }

        /// The first position at or after `position` that is neither white space nor inside a comment.
        func skipCFWS(from position: Int) throws(AddressListError) -> Int {
            var position = position
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09: position += 1
                case UInt8(ascii: "("): position = try commentEnd(from: position)
                default: return position
                }
            }
            return position
        }

        /// Just after the comment that opens at `start`, nested comments and quoted pairs within.
        func commentEnd(from start: Int) throws(AddressListError) -> Int {
            var depth = 0
            var position = start
            while position < bytes.count {
                let byte = bytes[position]
                if Self.isControl(byte) { throw AddressListError(.controlCharacter, at: position) }
                switch byte {
                case UInt8(ascii: "("): depth += 1
                case UInt8(ascii: ")"):
                    depth -= 1
                    if depth == 0 { return position + 1 }
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { break }
                    if Self.isControl(bytes[position]) { throw AddressListError(.controlCharacter, at: position) }
                default: break
                }
                position += 1
            }
            throw AddressListError(.unterminatedComment, at: start)
        }

        /// The token that starts at `start` (no white space there) and where it ends.
        func token(at start: Int) throws(AddressListError) -> (token: Token, end: Int) {
            guard start < bytes.count else { return (.end, start) }
            let byte = bytes[start]
            if Self.isControl(byte) { throw AddressListError(.controlCharacter, at: start) }
            switch byte {
            case UInt8(ascii: "\""): return try quotedString(at: start)
            case UInt8(ascii: "["): return try domainLiteral(at: start)
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: ":"), UInt8(ascii: "."):
                return (.special(byte), start + 1)
            default:
                guard Self.isAtext(byte) else { throw AddressListError(.unexpected, at: start) }
                var end = start
                while end < bytes.count, Self.isAtext(bytes[end]) { end += 1 }
                return (.atom(Array(bytes[start..<end])), end)
            }
        }

        /// A quoted string's content (quoted pairs resolved) and the position after its closing quote.
        func quotedString(at start: Int) throws(AddressListError) -> (token: Token, end: Int) {
            var content: [UInt8] = []
            var position = start + 1
            while position < bytes.count {
                let byte = bytes[position]
                if Self.isControl(byte) { throw AddressListError(.controlCharacter, at: position) }
                switch byte {
                case UInt8(ascii: "\""): return (.quoted(content), position + 1)
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { break }
                    if Self.isControl(bytes[position]) { throw AddressListError(.controlCharacter, at: position) }
                    content.append(bytes[position])
                default: content.append(byte)
                }
                position += 1
            }
            throw AddressListError(.unterminatedQuote, at: start)
        }

        /// `[dtext]` with its brackets, white space inside dropped, and the position after it.
        func domainLiteral(at start: Int) throws(AddressListError) -> (token: Token, end: Int) {
            var content: [UInt8] = [UInt8(ascii: "[")]
            var position = start + 1
            while position < bytes.count {
                let byte = bytes[position]
                if Self.isControl(byte) { throw AddressListError(.controlCharacter, at: position) }
                switch byte {
                case UInt8(ascii: "]"):
                    content.append(byte)
                    return (.literal(content), position + 1)
                case 0x20, 0x09: break
                case UInt8(ascii: "["), UInt8(ascii: "\\"): throw AddressListError(.unexpected, at: position)
                default: content.append(byte)
                }
                position += 1
            }
            throw AddressListError(.unterminatedLiteral, at: start)
        }
    }
}
