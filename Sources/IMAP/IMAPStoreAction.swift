import MailDoor

/// What a `STORE` does to the flags (RFC 9051 §6.4.6): `FLAGS`, `+FLAGS`, `-FLAGS`, each with `.SILENT`.
public struct IMAPStoreAction: Sendable, Equatable {
    /// Replace, add or remove.
    public enum Mode: Sendable, Equatable {
        case replace, add, remove
    }

    public var mode: Mode
    /// `.SILENT`: no untagged `FETCH` with the new flags.
    public var silent: Bool
    public var flags: [IMAPFlag]

    public init(mode: Mode, silent: Bool, flags: [IMAPFlag]) {
        self.mode = mode
        self.silent = silent
        self.flags = flags
    }

    /// Reads `store-att-flags`: `["+" / "-"] "FLAGS" [".SILENT"] SP (flag-list / (flag *(SP flag)))`.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPStoreAction {
        let mode: Mode = reader.take(UInt8(ascii: "+")) ? .add : reader.take(UInt8(ascii: "-")) ? .remove : .replace
        let silent: Bool
        if reader.take(word: "FLAGS.SILENT") {
            silent = true
        } else if reader.take(word: "FLAGS") {
            silent = false
        } else {
            throw .syntax("FLAGS, +FLAGS or -FLAGS")
        }
        try reader.space()
        if reader.peek() == ASCII.openParen {
            return IMAPStoreAction(mode: mode, silent: silent, flags: try IMAPFlag.readList(&reader))
        }
        var flags: [IMAPFlag] = []
        repeat { flags.append(try IMAPFlag.read(&reader)) } while reader.take(ASCII.space)
        return IMAPStoreAction(mode: mode, silent: silent, flags: flags)
    }
}
