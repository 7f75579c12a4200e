/// Why one recipient was not delivered (this time, or for good), from the SMTP session up to the queue's record: a
/// server's reply and the command it answered, the client's own failure, or Postern's decision in a reply's shape
/// (no such domain, a null MX, an MTA-STS policy, a DKIM key that cannot be read, the queue's lifetime).
///
/// A decision reads the case, the ``reply``'s codes and ``role``; the reply's text is for display only.
public enum DeliveryFailure: Sendable, Equatable, CustomStringConvertible {
    /// The server's reply, and which address the refused command named: `MAIL FROM` the sender, `RCPT TO` the
    /// recipient; nil for the session or the message (greeting, `EHLO`, `DATA`, the end of the text, `421`).
    case remote(SMTPReply, about: AddressRole?)
    /// The SMTP client gave up without a reply that decided it.
    case client(SMTPClientFailure)
    /// Postern decided without asking a server: the reply it gives, and the address it is about when it is about
    /// one (a recipient domain with no such name or a null MX is about the recipient).
    case local(SMTPReply, about: AddressRole?)

    /// The reply to show (the server's, or Postern's own account in the same shape).
    public var reply: SMTPReply {
        switch self {
        case .remote(let reply, _), .local(let reply, _): reply
        case .client(let failure): failure.reply
        }
    }

    /// Which address the failure is about, nil when it is about the session or the message.
    public var role: AddressRole? {
        switch self {
        case .remote(_, let role), .local(_, let role): role
        case .client(.refused(_, let role)): role
        case .client: nil
        }
    }

    /// Whether the failure says the recipient's address itself is bad for good (RFC 3463 class 5 subject 1 about the
    /// recipient: `5.1.1` no such user, `5.1.2` no such domain, `5.1.10` null MX): the failures that suppress it. A
    /// refused sender (`553 5.1.7` or `5.1.8` to `MAIL FROM`), policy (`5.7.x`), mailbox (`5.2.x`) and content
    /// (`5.6.x`) refusals say nothing lasting about the recipient's address.
    public var condemnsRecipientAddress: Bool {
        guard role == .recipient, let enhanced = reply.enhanced else { return false }
        return enhanced.statusClass == 5 && enhanced.isAddressingStatus
    }

    /// The reply on one line.
    public var description: String { reply.description }
}
