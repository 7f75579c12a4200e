/// What the sender rule (`POSTERN_OUTBOUND_SENDERS`) says of one sender, asked before any outside recipient is queued.
public enum OutsideSender: Sendable, Equatable {
    /// It may send outside. `holder` names who answers for it (an owner), whose limits of scope
    /// ``SendLimit/Scope/holder`` count every sender they hold together; nil when nobody is named.
    case allowed(holder: SubmissionHolder?)
    /// Nobody answers for it (an anonymous agent, a free account, an address on a domain nobody holds verified): its
    /// outside recipients stay in the outbox.
    case notAccountable
    /// An owner holds it who signed up themselves and waits for the operator's approval: its outside recipients stay
    /// in the outbox.
    case awaitingApproval
}
