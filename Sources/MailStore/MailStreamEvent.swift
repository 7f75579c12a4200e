/// What a ``MailChangeStream`` hands its consumer: a change of the watched address's mail, a wake-up without one, or
/// a quiet spell. The consumer formats it for its door (a JMAP `StateChange`, a live-list event, a mail.cx
/// `new_email`, a Mailpit event, an IMAP `EXISTS`); the stream has already checked that the consumer may still listen.
public enum MailStreamEvent: Sendable, Equatable {
    /// The watched address's mail state moved.
    case changed(MailStreamChange)
    /// Something was announced for what the stream watches, but no mail state it can see moved: the submission
    /// ledger's moves (announced under the sender's address), and for a stream of every address each announcement
    /// and (on SQLite) each look for other processes' writes. A consumer that watches more than the mail state looks
    /// again.
    case woken
    /// Nothing came for the stream's quiet interval: time for a keep-alive (a ping).
    case quiet
}

/// One move of an address's mail state, as a change stream saw it between two looks: which address, from which
/// state to which, and what happened to which message in between (the change log's rows).
public struct MailStreamChange: Sendable, Equatable {
    /// The address (an account's, a mailbox's) whose mail changed.
    public var address: String
    /// The state the stream's consumer knew before (the one it started from, or the last change's); nil when it
    /// started without one.
    public var previous: Int64?
    /// The address's state now: the cursor a consumer hands back to start from here (a JMAP state, a live list's
    /// event id).
    public var state: Int64
    /// The change log's rows from ``previous`` to ``state``, oldest first: each message created, updated (flags,
    /// keywords, folder) or destroyed, with its folders before and after. Nil when ``previous`` is nil or older than
    /// the log keeps (trimmed): the consumer cannot know what changed and starts over.
    public var log: [MailChange]?

    public init(address: String, previous: Int64?, state: Int64, log: [MailChange]?) {
        self.address = address
        self.previous = previous
        self.state = state
        self.log = log
    }

    /// The messages of ``log`` that arrived in the inbox (created there), in arrival order; none when the log is
    /// unknown.
    public var arrivals: [MailChange] {
        (log ?? []).filter { $0.kind == .created && $0.folderAfter == .inbox }
    }
}
