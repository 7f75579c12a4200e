/// Where a stored copy came from (`mail_messages.origin`, migration 0039).
public enum MailOrigin: String, Sendable, Equatable {
    /// Delivered to this mailbox: over SMTP, by local delivery, as a copy of another account's submission.
    case received
    /// Written in this mailbox (JMAP `Email/set`, and what composes through it): the only kind that may be submitted.
    case written
}
