import SMTPOutcomes

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
    /// The recipient's forward path.
    public let recipient: String
    /// Where it stands: delivered with the server's reply, deferred or failed with why (the server's reply and the
    /// command it answered, or the client's own failure). Never queued or held.
    public let status: RecipientStatus

    /// A result.
    public init(recipient: String, status: RecipientStatus) {
        self.recipient = recipient
        self.status = status
    }

    /// The server's reply that decided it; nil when the client decided (a ``SMTPClientFailure``).
    public var reply: SMTPReply? {
        switch status {
        case .delivered(let reply): reply
        case .deferred(.remote(let reply, _)), .failed(.remote(let reply, _)): reply
        default: nil
        }
    }

    /// The status on one line, for logs and display: the reply, or the client's account in a reply's shape.
    public var detail: String {
        switch status {
        case .queued: "queued"
        case .held(let reason): "held: " + reason.explanation
        case .delivered(let reply): reply.description
        case .deferred(let why), .failed(let why): why.description
        }
    }
}
