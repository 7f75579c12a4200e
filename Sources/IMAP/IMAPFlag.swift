import MailDoor

/// A message flag (RFC 9051 §2.3.2): a system flag, a keyword (`$Forwarded`, `NonJunk`) or another backslash flag.
public enum IMAPFlag: Sendable, Hashable {
    case seen, answered, flagged, deleted, draft
    /// `\Recent` (IMAP4rev1 only): the server may report it; a client may not set it.
    case recent
    /// A keyword: an atom without a backslash.
    case keyword(String)
    /// Another `\` atom (a `flag-extension`), kept as written without its backslash.
    case `extension`(String)

    /// The flag as it is written on the wire.
    public var text: String {
        switch self {
        case .seen: return "\\Seen"
        case .answered: return "\\Answered"
        case .flagged: return "\\Flagged"
        case .deleted: return "\\Deleted"
        case .draft: return "\\Draft"
        case .recent: return "\\Recent"
        case .keyword(let keyword): return keyword
        case .extension(let name): return "\\" + name
        }
    }

    /// Reads `flag` (`\Seen`, a keyword); `\Recent` is refused, as a client may not store or append it.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPFlag {
        guard reader.take(ASCII.backslash) else { return .keyword(try reader.atom("a flag")) }
        let name = try reader.atom("a flag")
        switch name.uppercased() {
        case "SEEN": return .seen
        case "ANSWERED": return .answered
        case "FLAGGED": return .flagged
        case "DELETED": return .deleted
        case "DRAFT": return .draft
        case "RECENT": throw .syntax("a flag other than \\Recent")
        default: return .extension(name)
        }
    }

    /// Reads `flag-list`: `(` flags separated by SP `)`, possibly empty.
    static func readList(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [IMAPFlag] {
        try reader.open()
        var flags: [IMAPFlag] = []
        if !reader.takeClose() {
            repeat { flags.append(try read(&reader)) } while reader.take(ASCII.space)
            try reader.close()
        }
        return flags
    }
}
