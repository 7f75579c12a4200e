import MailDoor

/// Reads `SEARCH`'s arguments (RFC 3501 §6.4.4 grammar, RFC 9051 §6.4.4 and RFC 4731's `RETURN`).
enum IMAPSearchParser {
    /// Reads `[SP "RETURN" SP "(" options ")"] [SP "CHARSET" SP charset] 1*(SP search-key)` after the command name.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSearchCommand {
        try reader.space()
        var command = IMAPSearchCommand(key: .all)
        command.returnOptions = try returnOptions(&reader)
        if reader.take(word: "CHARSET") {
            try reader.space()
            command.charset = try reader.astringText()
            try reader.space()
        }
        command.key = try keys(&reader)
        return command
    }

    /// Reads `search-key *(SP search-key)`, the keys ANDed (one alone as itself).
    static func keys(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSearchKey {
        var keys: [IMAPSearchKey] = []
        repeat { keys.append(try key(&reader)) } while reader.take(ASCII.space)
        return keys.count == 1 ? keys[0] : .and(keys)
    }

    /// Reads `"RETURN" SP "(" [option *(SP option)] ")" SP` when it comes next (ESEARCH's, RFC 4731, and ESORT's,
    /// RFC 5267); nil when it does not.
    static func returnOptions(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [IMAPSearchReturnOption]? {
        guard reader.take(word: "RETURN") else { return nil }
        try reader.space()
        try reader.open()
        var options: [IMAPSearchReturnOption] = []
        if !reader.takeClose() {
            repeat {
                guard let option = IMAPSearchReturnOption(rawValue: try reader.keyword("a RETURN option")) else {
                    throw .syntax("MIN, MAX, ALL, COUNT or SAVE")
                }
                options.append(option)
            } while reader.take(ASCII.space)
            try reader.close()
        }
        try reader.space()
        return options
    }

    /// Reads one `search-key`.
    static func key(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSearchKey {
        guard let first = reader.peek() else { throw .syntax("a search key") }
        if first == ASCII.openParen {
            try reader.open()
            var keys: [IMAPSearchKey] = []
            repeat { keys.append(try key(&reader)) } while reader.take(ASCII.space)
            try reader.close()
            return keys.count == 1 ? keys[0] : .and(keys)
        }
        if ASCII.isDigit(first) || first == UInt8(ascii: "*") || first == UInt8(ascii: "$") {
            return .sequence(try IMAPSequenceSet.read(&reader))
        }
        let word = try reader.keyword("a search key")
        switch word {
        case "ALL": return .all
        case "ANSWERED": return .flag(.answered, set: true)
        case "DELETED": return .flag(.deleted, set: true)
        case "DRAFT": return .flag(.draft, set: true)
        case "FLAGGED": return .flag(.flagged, set: true)
        case "SEEN": return .flag(.seen, set: true)
        case "UNANSWERED": return .flag(.answered, set: false)
        case "UNDELETED": return .flag(.deleted, set: false)
        case "UNDRAFT": return .flag(.draft, set: false)
        case "UNFLAGGED": return .flag(.flagged, set: false)
        case "UNSEEN": return .flag(.seen, set: false)
        case "NEW": return .new
        case "OLD": return .old
        case "RECENT": return .recent
        case "KEYWORD", "UNKEYWORD":
            try reader.space()
            return .flag(.keyword(try reader.atom("a keyword")), set: word == "KEYWORD")
        case "FROM", "TO", "CC", "BCC":
            try reader.space()
            return .address(field: word, contains: try reader.astringText())
        case "SUBJECT":
            try reader.space()
            return .header(field: word, contains: try reader.astringText())
        case "HEADER":
            try reader.space()
            let field = try reader.astringText()
            try reader.space()
            return .header(field: field.uppercased(), contains: try reader.astringText())
        case "BODY":
            try reader.space()
            return .body(try reader.astringText())
        case "TEXT":
            try reader.space()
            return .text(try reader.astringText())
        case "BEFORE", "ON", "SINCE", "SENTBEFORE", "SENTON", "SENTSINCE":
            try reader.space()
            let date = try IMAPDate.read(&reader)
            let comparison: IMAPDateComparison =
                word.hasSuffix("BEFORE") ? .before : word.hasSuffix("ON") ? .on : .since
            return word.hasPrefix("SENT") ? .sentDate(comparison, date) : .internalDate(comparison, date)
        case "LARGER", "SMALLER":
            try reader.space()
            let size = try reader.number64()
            return word == "LARGER" ? .larger(size) : .smaller(size)
        case "UID":
            try reader.space()
            return .uid(try IMAPSequenceSet.read(&reader))
        case "NOT":
            try reader.space()
            return .not(try nested(&reader))
        case "OR":
            try reader.space()
            let left = try nested(&reader)
            try reader.space()
            return .or(left, try nested(&reader))
        default:
            throw .syntax("a search key")
        }
    }

    /// A key under `NOT` or `OR`, counted as one level of nesting so that `NOT NOT NOT ...` is bounded too.
    private static func nested(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSearchKey {
        try reader.descend()
        defer { reader.ascend() }
        return try key(&reader)
    }
}
