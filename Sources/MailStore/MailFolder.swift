import Foundation

/// Where a copy of a message sits in its address's mailbox: one of the six folders every address has, or one a person
/// made (decision 35). Named by its key, which never changes: a rename changes the folder's name, never its key, so
/// no message moves.
public struct MailFolder: RawRepresentable, Hashable, Sendable {
    /// The key `mail_messages.folder` holds: a fixed folder's name (`inbox`), or the random key of a made one.
    public let rawValue: String

    /// The folder keyed `rawValue`; nil when it cannot be a key (1 to 64 of `a`–`z`, `0`–`9`, `-`). Whether the
    /// address has such a folder is the store's to say.
    public init?(rawValue: String) {
        let bytes = rawValue.utf8
        guard (1...64).contains(bytes.count),
            bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else { return nil }
        self.rawValue = rawValue
    }

    private init(key: String) { rawValue = key }

    public static let inbox = MailFolder(key: "inbox")
    public static let drafts = MailFolder(key: "drafts")
    public static let sent = MailFolder(key: "sent")
    public static let trash = MailFolder(key: "trash")
    public static let junk = MailFolder(key: "junk")
    public static let archive = MailFolder(key: "archive")

    /// The six folders every address has from the start, in the order they are listed.
    public static let fixed: [MailFolder] = [.inbox, .drafts, .sent, .trash, .junk, .archive]

    /// Whether this is one of the six: it has a role and cannot be renamed or deleted.
    public var isFixed: Bool { role != nil }

    /// The special use of a fixed folder; nil for one a person made.
    public var role: MailFolderRole? { MailFolderRole(rawValue: rawValue) }

    /// A new folder's key: random, never one of the six.
    static func made() -> MailFolder { MailFolder(key: UUID().uuidString.lowercased()) }
}

/// What a fixed folder is for: JMAP's role (RFC 8621 §2) and IMAP's special-use attribute (RFC 6154) of the same name.
public enum MailFolderRole: String, Sendable, CaseIterable {
    case inbox, drafts, sent, trash, junk, archive

    /// The folder's name as every door shows it (IMAP shows the inbox as `INBOX`).
    public var name: String {
        switch self {
        case .inbox: return "Inbox"
        case .drafts: return "Drafts"
        case .sent: return "Sent"
        case .trash: return "Trash"
        case .junk: return "Junk"
        case .archive: return "Archive"
        }
    }
}
