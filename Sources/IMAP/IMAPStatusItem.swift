import MailDoor

/// A `STATUS` data item (RFC 9051 §6.3.11; `RECENT` from RFC 3501; `SIZE` and `DELETED` from RFC 9051).
public enum IMAPStatusItem: String, Sendable, Equatable, CaseIterable {
    case messages = "MESSAGES"
    case uidNext = "UIDNEXT"
    case uidValidity = "UIDVALIDITY"
    case unseen = "UNSEEN"
    case deleted = "DELETED"
    case size = "SIZE"
    case recent = "RECENT"

    /// Reads `"(" status-att *(SP status-att) ")"`.
    static func readList(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [IMAPStatusItem] {
        try reader.open()
        var items: [IMAPStatusItem] = []
        repeat {
            guard let item = IMAPStatusItem(rawValue: try reader.keyword("a STATUS item")) else {
                throw .syntax("MESSAGES, UIDNEXT, UIDVALIDITY, UNSEEN, DELETED, SIZE or RECENT")
            }
            items.append(item)
        } while reader.take(ASCII.space)
        try reader.close()
        return items
    }
}
