import MailDoor
import SASL

/// Parses one framed command (``IMAPFramerEvent/command(_:)``) into an ``IMAPCommand`` (RFC 3501 §9 and RFC 9051
/// §9 where they differ). Pure: the bytes in, the command or a typed failure out.
public enum IMAPCommandParser {
    /// The command in `bytes`.
    /// - Throws: ``IMAPCommandFailure``, with the tag when it was readable, so that the `BAD` carries it.
    public static func parse(_ bytes: [UInt8], limits: IMAPLimits) throws(IMAPCommandFailure) -> IMAPCommand {
        var reader = IMAPCommandReader(bytes, limits: limits)
        let tagBytes = reader.span(IMAPCharacters.isTagChar)
        guard !tagBytes.isEmpty, reader.isAtEnd || reader.peek() == ASCII.space else {
            throw IMAPCommandFailure(tag: nil, error: bytes.isEmpty ? .emptyCommand : .invalidTag)
        }
        let tag = String(decoding: tagBytes, as: UTF8.self)
        do {
            try reader.space()
            let kind = try self.kind(&reader)
            try reader.end()
            return IMAPCommand(tag: tag, kind: kind)
        } catch {
            throw IMAPCommandFailure(tag: tag, error: error)
        }
    }

    private static func kind(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPCommandKind {
        let name = try reader.keyword("a command")
        switch name {
        case "CAPABILITY": return .capability
        case "NOOP": return .noop
        case "LOGOUT": return .logout
        case "STARTTLS": return .startTLS
        case "NAMESPACE": return .namespace
        case "ID":
            // RFC 2971: NIL or a list of field-value pairs. Read leniently (RFC 2971's 30 pairs of 30 and 1,024
            // octets are the client's duty; the command's own size bound still holds) and not kept.
            try reader.space()
            if reader.take(word: "NIL") { return .id }
            try reader.expect(UInt8(ascii: "("), "( or NIL")
            var first = true
            while !reader.take(UInt8(ascii: ")")) {
                if !first { try reader.space() }
                first = false
                _ = try reader.string()
                try reader.space()
                _ = try reader.nstring()
            }
            return .id
        case "IDLE": return .idle
        case "CHECK": return .check
        case "CLOSE": return .close
        case "UNSELECT": return .unselect
        case "EXPUNGE": return .expunge
        case "AUTHENTICATE":
            try reader.space()
            let mechanism = try reader.keyword("a SASL mechanism")
            guard reader.take(ASCII.space) else { return .authenticate(mechanism: mechanism, initialResponse: nil) }
            guard let response = SASLMessage(line: reader.span { $0 != ASCII.space }) else {
                throw .syntax("a base64 initial response")
            }
            return .authenticate(mechanism: mechanism, initialResponse: response)
        case "LOGIN":
            try reader.space()
            let username = try reader.astringText()
            try reader.space()
            return .login(username: username, password: try reader.astringText())
        case "ENABLE":
            var names: [String] = []
            while reader.take(ASCII.space) { names.append(try reader.keyword("a capability")) }
            guard !names.isEmpty else { throw .syntax("a capability") }
            return .enable(names)
        case "SELECT", "EXAMINE", "CREATE", "DELETE", "SUBSCRIBE", "UNSUBSCRIBE":
            try reader.space()
            let mailbox = try IMAPMailboxName.read(&reader)
            switch name {
            case "SELECT": return .select(mailbox)
            case "EXAMINE": return .examine(mailbox)
            case "CREATE": return .create(mailbox, use: try Self.createParameters(&reader))
            case "DELETE": return .delete(mailbox)
            case "SUBSCRIBE": return .subscribe(mailbox)
            default: return .unsubscribe(mailbox)
            }
        case "RENAME":
            try reader.space()
            let from = try IMAPMailboxName.read(&reader)
            try reader.space()
            return .rename(from, to: try IMAPMailboxName.read(&reader))
        case "LIST":
            return .list(try IMAPListCommand.read(&reader))
        case "LSUB":
            try reader.space()
            let reference = try reader.astringText()
            try reader.space()
            return .lsub(reference: reference, pattern: try IMAPListCommand.pattern(&reader))
        case "STATUS":
            try reader.space()
            let mailbox = try IMAPMailboxName.read(&reader)
            try reader.space()
            return .status(mailbox, try IMAPStatusItem.readList(&reader))
        case "APPEND":
            return try append(&reader)
        case "UID":
            try reader.space()
            let sub = try reader.keyword("COPY, MOVE, FETCH, SEARCH, SORT, THREAD, STORE or EXPUNGE")
            return try selected(sub, &reader, uid: true)
        default:
            return try selected(name, &reader, uid: false)
        }
    }

    /// The commands the `UID` prefix applies to, with or without it.
    private static func selected(
        _ name: String, _ reader: inout IMAPCommandReader, uid: Bool
    ) throws(IMAPCommandError) -> IMAPCommandKind {
        switch name {
        case "SEARCH":
            return .search(try IMAPSearchParser.read(&reader), uid: uid)
        case "SORT":
            return .sort(try IMAPSortCommand.read(&reader), uid: uid)
        case "THREAD":
            return .thread(try IMAPThreadCommand.read(&reader), uid: uid)
        case "FETCH", "STORE", "COPY", "MOVE", "EXPUNGE":
            try reader.space()
            let set = try IMAPSequenceSet.read(&reader)
            switch name {
            case "EXPUNGE": return .uidExpunge(set)
            case "FETCH":
                try reader.space()
                return .fetch(set, try IMAPFetchParser.read(&reader), uid: uid)
            case "STORE":
                try reader.space()
                return .store(set, try IMAPStoreAction.read(&reader), uid: uid)
            default:
                try reader.space()
                let mailbox = try IMAPMailboxName.read(&reader)
                return name == "COPY" ? .copy(set, mailbox, uid: uid) : .move(set, mailbox, uid: uid)
            }
        default:
            throw uid ? .syntax("COPY, MOVE, FETCH, SEARCH, SORT, THREAD, STORE or EXPUNGE") : .unknownCommand
        }
    }

    /// `[SP "(" create-param ")"]` after `CREATE mailbox`, of which RFC 6154 defines one, `USE (use-attr ...)`:
    /// the special-use attributes asked for (`\\Archive`), backslash included, as written.
    private static func createParameters(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [String] {
        guard reader.take(ASCII.space) else { return [] }
        try reader.open()
        guard reader.take(word: "USE") else { throw .syntax("USE") }
        try reader.space()
        try reader.open()
        var attributes: [String] = []
        if !reader.takeClose() {
            repeat {
                guard reader.take(ASCII.backslash) else { throw .syntax("a special-use attribute") }
                attributes.append("\\" + (try reader.atom("a special-use attribute")))
            } while reader.take(ASCII.space)
            try reader.close()
        }
        try reader.close()
        return attributes
    }

    /// `APPEND SP mailbox [SP flag-list] [SP date-time] SP literal`.
    private static func append(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPCommandKind {
        try reader.space()
        let mailbox = try IMAPMailboxName.read(&reader)
        try reader.space()
        var flags: [IMAPFlag] = []
        if reader.peek() == ASCII.openParen {
            flags = try IMAPFlag.readList(&reader)
            try reader.space()
        }
        var date: IMAPDateTime?
        if reader.peek() == ASCII.quote {
            date = try IMAPDateTime.read(&reader)
            try reader.space()
        }
        guard reader.peek() == UInt8(ascii: "{") || reader.peek() == UInt8(ascii: "~") else {
            throw .syntax("the message as a literal")
        }
        return .append(mailbox, flags: flags, date: date, message: try reader.literal())
    }
}

/// A command refused by ``IMAPCommandParser``: the tag when it was readable (nil: the `BAD` is untagged) and why.
public struct IMAPCommandFailure: Error, Sendable, Equatable {
    public var tag: String?
    public var error: IMAPCommandError

    public init(tag: String?, error: IMAPCommandError) {
        self.tag = tag
        self.error = error
    }
}
