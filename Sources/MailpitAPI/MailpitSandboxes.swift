import MailStore

/// The port through which the Mailpit API finds a Pro user's SMTP sandbox from the user's API token (the composition
/// root fills it with the sandbox of `MailSandbox`, which this surface does not know).
public protocol MailpitSandboxes: Sendable {
    /// The sandbox of the Pro user whose live API token `token` is (made now when the user has none yet); nil when
    /// `token` is no live Pro API token of an active user.
    func sandbox(apiToken token: String) async throws -> MailpitSandbox?

    /// Stores `raw` in `sandbox` as its SMTP listener would have captured it from `mailFrom` for `recipients`;
    /// returns the new message's id.
    /// - Throws: ``MailpitReceivingError/refused`` for a full sandbox or an unreadable message; storage errors.
    func capture(raw: [UInt8], mailFrom: String, recipients: [String], in sandbox: MailpitSandbox) async throws
        -> String
}

/// A Pro user's SMTP sandbox as the Mailpit API sees it: where its mail is and whose it is.
public struct MailpitSandbox: Sendable, Equatable {
    /// The store address its captures are kept under.
    public var address: String
    /// The Pro user's id.
    public var owner: String

    public init(address: String, owner: String) {
        self.address = address
        self.owner = owner
    }
}

/// The port through which `POST /api/v1/send` stores a message for the operator as SMTP would have received it:
/// through local delivery, its recipients' verdicts and the catch-all. Nothing leaves the machine.
public protocol MailpitReceiving: Sendable {
    /// Delivers `raw` from `mailFrom` to `recipients` as the SMTP listener would; returns the id of each copy stored.
    /// - Throws: ``MailpitReceivingError`` when no recipient is local; storage errors.
    func receive(raw: [UInt8], mailFrom: String, recipients: [String]) async throws -> [String]
}

/// Why `POST /api/v1/send` stored nothing.
public enum MailpitReceivingError: Error, Sendable, Equatable {
    /// No recipient is one this server takes mail for (the SMTP listener would have refused each at `RCPT TO`).
    case noLocalRecipient
    /// The message could not be stored as given (a full mailbox, a message past the parser's limits).
    case refused
}
