/// The SMTP envelope of a submission (RFC 8621 7's `envelope`): the `MAIL FROM` address and the `RCPT TO` addresses
/// in order, as the client gave them or, when it gave none, the sender and the message's To, Cc and Bcc without
/// repeats. No SMTP parameters: none is sent.
public struct SubmissionEnvelope: Sendable, Equatable {
    /// The reverse path's address.
    public var mailFrom: String
    /// The forward paths' addresses, in order.
    public var rcptTo: [String]

    /// - Parameters: see the properties.
    public init(mailFrom: String, rcptTo: [String]) {
        self.mailFrom = mailFrom
        self.rcptTo = rcptTo
    }
}
