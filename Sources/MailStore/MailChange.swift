/// One row of the change log: what one insert, update or delete of a message did to its address's state.
public struct MailChange: Sendable, Equatable {
    /// What happened to the message.
    public enum Kind: String, Sendable {
        case created, updated, destroyed
    }

    /// The address's state this change produced.
    public var seq: Int64
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
