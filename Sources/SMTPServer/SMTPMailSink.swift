/// What the mail store says of one `RCPT TO` address.
public enum SMTPRecipientVerdict: Sendable, Equatable {
    /// A local mailbox that takes mail: `250 2.1.5`.
    case accept
    /// A local domain with no such mailbox: `550 5.1.1`.
    case unknownLocal
    /// Not a local domain; this server relays nothing: `550 5.7.1`.
    case relayDenied
}

/// The envelope of one received message, as the client gave it.
public struct SMTPEnvelope: Sendable, Equatable {
    /// The `MAIL FROM` reverse path without angle brackets; empty for the null path (`<>`, bounces).
    public var mailFrom: String
    /// The accepted `RCPT TO` addresses, in the order given, without angle brackets.
    public var recipients: [String]
    /// The client's IP address as text.
    public var remoteAddress: String

    /// Creates an envelope.
    public init(mailFrom: String, recipients: [String], remoteAddress: String) {
        self.mailFrom = mailFrom
        self.recipients = recipients
        self.remoteAddress = remoteAddress
    }
}

/// Where received mail goes: the recipient policy and durable delivery (the mail store implements it).
/// Both calls run in a Swift task, off the event loops; they may block on storage.
public protocol SMTPMailSink: Sendable {
    /// Whether `address` (a `RCPT TO` path without angle brackets) may receive mail here.
    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict
    /// Returns a queue id when every recipient's copy is durably stored; throws to make the server answer 451.
    ///
    /// The id is shown to the client in `250 2.0.0 OK queued as <id>`; characters outside printable
    /// ASCII are dropped from it there.
    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String
}
