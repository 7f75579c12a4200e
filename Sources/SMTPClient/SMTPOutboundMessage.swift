/// One message for one destination: the envelope and the text as it will be sent.
public struct SMTPOutboundMessage: Sendable, Equatable {
    /// The reverse path (`MAIL FROM`), without angle brackets; empty for the null path of a bounce.
    public var sender: String
    /// The forward paths (`RCPT TO`) at this destination, in order.
    public var recipients: [String]
    /// The RFC 5322 text (headers, blank line, body) with any line ends: the session sends CRLF, dot-stuffed.
    public var content: [UInt8]

    /// A message.
    public init(sender: String, recipients: [String], content: [UInt8]) {
        self.sender = sender
        self.recipients = recipients
        self.content = content
    }
}

/// What happened to one recipient of one message.
public struct SMTPRecipientResult: Sendable, Equatable {
    /// Where the recipient stands.
    public enum Status: String, Sendable, Equatable {
        /// The server took the message for this recipient (`250` to the end of the text).
        case delivered
        /// Not delivered this time (a `4xx`, a lost connection, a timeout, TLS missing): try again later.
        case deferred
        /// Refused for good (a `5xx`): bounce.
        case failed
    }

    /// The recipient's forward path.
    public let recipient: String
    /// Where it stands.
    public let status: Status
    /// The server's reply that decided it; nil when the client decided (``detail`` says why).
    public let reply: SMTPClientReply?
    /// The reply on one line, or the client's reason (`TLS required but not offered`).
    public let detail: String

    /// A result.
    public init(recipient: String, status: Status, reply: SMTPClientReply?, detail: String? = nil) {
        self.recipient = recipient
        self.status = status
        self.reply = reply
        self.detail = detail ?? reply?.description ?? ""
    }
}
