/// Which address of the envelope a reply or a refusal is about: the reverse path (`MAIL FROM`) or a forward path
/// (`RCPT TO`). A refused sender says nothing about the recipients that share its fate.
public enum AddressRole: String, Sendable, Equatable {
    /// The envelope sender (`MAIL FROM`).
    case sender
    /// The recipient (`RCPT TO`, or its domain: no such domain, a null MX).
    case recipient
}
