/// Who a message is from and for, as the transport that brought it says (SMTP's `MAIL FROM` and `RCPT TO`, or the
/// operator's `postern mail deliver --to`).
public struct MailEnvelope: Sendable, Equatable {
    /// The reverse path without angle brackets; empty for the null path (bounces).
    public var mailFrom: String
    /// The recipient addresses, in the order given, without angle brackets.
    public var recipients: [String]

    /// - Parameters:
    ///   - mailFrom: the reverse path; empty for the null path.
    ///   - recipients: the recipient addresses.
    public init(mailFrom: String, recipients: [String]) {
        self.mailFrom = mailFrom
        self.recipients = recipients
    }
}
