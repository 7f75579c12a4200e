/// A mailbox's name as a command gives it (RFC 9051 §5.1): `INBOX` in any case is INBOX; other names are kept as
/// sent (UTF-8 under IMAP4rev2, modified UTF-7 under IMAP4rev1: the driver knows which the session enabled).
public struct IMAPMailboxName: Sendable, Hashable {
    /// The name, `INBOX` in upper case.
    public let name: String

    /// `name`, with any spelling of `INBOX` made `INBOX`.
    public init(_ name: String) {
        self.name = name.uppercased() == "INBOX" ? "INBOX" : name
    }

    /// Whether this is INBOX.
    public var isInbox: Bool { name == "INBOX" }

    /// Reads `mailbox` (an astring).
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPMailboxName {
        IMAPMailboxName(try reader.astringText())
    }
}
