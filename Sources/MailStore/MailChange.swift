/// One row of the change log: what one insert, update or delete of a message, or the making, renaming or deleting
/// of a folder (migration 0076), did to its address's state.
public struct MailChange: Sendable, Equatable {
    /// What happened to the message (or, for the `mailbox` kinds, to the folder whose key is ``messageID``).
    public enum Kind: String, Sendable {
        case created, updated, destroyed
        case mailboxCreated = "mailbox-created"
        case mailboxUpdated = "mailbox-updated"
        case mailboxDestroyed = "mailbox-destroyed"

        /// Whether the row is a message's change (not a folder's).
        public var isMessage: Bool {
            switch self {
            case .created, .updated, .destroyed: return true
            case .mailboxCreated, .mailboxUpdated, .mailboxDestroyed: return false
            }
        }
    }

    /// The address's state this change produced.
    public var seq: Int64
    /// The message's id; the folder's key for a folder's change.
    public var messageID: String
    /// The message's thread (after the change; before it for a delete).
    public var threadID: String?
    public var kind: Kind
    /// The folder before the change; nil for `created`.
    public var folderBefore: MailFolder?
    /// The folder after the change; nil for `destroyed`.
    public var folderAfter: MailFolder?

    public init(
        seq: Int64, messageID: String, threadID: String?, kind: Kind, folderBefore: MailFolder?,
        folderAfter: MailFolder?
    ) {
        self.seq = seq
        self.messageID = messageID
        self.threadID = threadID
        self.kind = kind
        self.folderBefore = folderBefore
        self.folderAfter = folderAfter
    }
}
