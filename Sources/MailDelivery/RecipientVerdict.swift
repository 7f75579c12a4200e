/// Whether one recipient address may receive mail here, as a transport asks before it takes the message.
public enum RecipientVerdict: Sendable, Equatable {
    /// A local mailbox that takes mail (or a local domain whose accounts cannot be read now: the delivery then
    /// fails with a temporary error instead of a permanent refusal).
    case accept
    /// A local domain with no such mailbox.
    case unknownLocal
    /// Not a local domain: this server relays nothing.
    case relayDenied
}
