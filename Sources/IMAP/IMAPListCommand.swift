import MailDoor

/// A `LIST` command's arguments (RFC 9051 §6.3.9, RFC 5258's extended form, RFC 6154's `SPECIAL-USE`, RFC 5819's
/// `RETURN (STATUS ...)`).
public struct IMAPListCommand: Sendable, Equatable {
    /// Selection options (`SUBSCRIBED`, `REMOTE`, `RECURSIVEMATCH`, `SPECIAL-USE`), in upper case.
    public var selectionOptions: [String]
    /// The reference name (often empty).
    public var reference: String
    /// The patterns, with `*` and `%` wildcards; more than one only in the extended form.
    public var patterns: [String]
    /// Return options.
    public var returnOptions: [IMAPListReturnOption]

    public init(
        selectionOptions: [String] = [], reference: String, patterns: [String],
        returnOptions: [IMAPListReturnOption] = []
    ) {
        self.selectionOptions = selectionOptions
        self.reference = reference
        self.patterns = patterns
        self.returnOptions = returnOptions
    }

    /// Reads `[SP list-select-opts] SP mailbox SP mbox-or-pat [SP list-return-opts]` after `LIST`.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPListCommand {
        try reader.space()
        var command = IMAPListCommand(reference: "", patterns: [])
        if reader.peek() == ASCII.openParen {
            command.selectionOptions = try optionList(&reader)
            // RFC 5258 §3: an unknown option is BAD, and RECURSIVEMATCH needs another one that is not REMOTE.
            let known: Set<String> = ["SUBSCRIBED", "REMOTE", "RECURSIVEMATCH", "SPECIAL-USE"]
            guard command.selectionOptions.allSatisfy(known.contains) else {
                throw .syntax("SUBSCRIBED, REMOTE, RECURSIVEMATCH or SPECIAL-USE")
            }
            if command.selectionOptions.contains("RECURSIVEMATCH"),
                command.selectionOptions.allSatisfy({ $0 == "RECURSIVEMATCH" || $0 == "REMOTE" })
            {
                throw .syntax("a selection option beside RECURSIVEMATCH and REMOTE")
            }
            try reader.space()
        }
        command.reference = try reader.astringText()
        try reader.space()
        if reader.peek() == ASCII.openParen {
            try reader.open()
            repeat { command.patterns.append(try pattern(&reader)) } while reader.take(ASCII.space)
            try reader.close()
        } else {
            command.patterns = [try pattern(&reader)]
        }
        if reader.take(ASCII.space) {
            guard reader.take(word: "RETURN") else { throw .syntax("RETURN") }
            try reader.space()
            try reader.open()
            if !reader.takeClose() {
                repeat { command.returnOptions.append(try returnOption(&reader)) } while reader.take(ASCII.space)
                try reader.close()
            }
        }
        return command
    }

    /// `list-mailbox`: list characters (wildcards included) or a string.
    static func pattern(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> String {
        if let byte = reader.peek(), IMAPCharacters.isListChar(byte) {
            return String(decoding: reader.span(IMAPCharacters.isListChar), as: UTF8.self)
        }
        return try IMAPCommandReader.text(reader.string())
    }

    private static func optionList(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [String] {
        try reader.open()
        var options: [String] = []
        if !reader.takeClose() {
            repeat { options.append(try reader.keyword("a LIST option")) } while reader.take(ASCII.space)
            try reader.close()
        }
        return options
    }

    private static func returnOption(
        _ reader: inout IMAPCommandReader
    ) throws(IMAPCommandError) -> IMAPListReturnOption {
        let word = try reader.keyword("a LIST return option")
        switch word {
        case "SUBSCRIBED": return .subscribed
        case "CHILDREN": return .children
        case "SPECIAL-USE": return .specialUse
        case "STATUS":
            try reader.space()
            return .status(try IMAPStatusItem.readList(&reader))
        default: throw .syntax("SUBSCRIBED, CHILDREN, SPECIAL-USE or STATUS")
        }
    }
}

/// What `LIST ... RETURN (...)` asks for besides the names.
public enum IMAPListReturnOption: Sendable, Equatable {
    case subscribed, children, specialUse
    /// `STATUS (...)`: a `STATUS` response for each mailbox listed.
    case status([IMAPStatusItem])
}
