import ClientAddress
import SMTPOutcomes

/// How the web inbox sends as an owner's inbox: a port the composition root fills with JMAP (`Email/set` then
/// `EmailSubmission/set`, as a JMAP client sends), so every rule of sending (who the message may say it is from, which
/// recipients exist, the per-sender limits, what leaves this server) is the mail API's, applied once.
public protocol WebInboxSender: Sendable {
    /// Sends `draft` from the live inbox at `address` that owner `ownerID` holds, acting as that inbox's account.
    /// - Parameters:
    ///   - draft: what to send.
    ///   - address: the inbox it is sent from.
    ///   - ownerID: the signed-in owner, who must hold that inbox now.
    ///   - client: who asked, for the mail API's per-client limits.
    ///   - requestID: the request id unexpected errors are logged with.
    /// - Returns: where each recipient's copy went.
    /// - Throws: ``WebInboxSendRefusal`` when nothing was sent (and no draft is left behind); storage errors.
    func send(
        _ draft: WebInboxDraft, from address: String, ownerID: String, client: ClientAddressKey, requestID: String
    ) async throws -> WebInboxSendReport

    /// The messages the live inbox at `address` that owner `ownerID` holds has held in this server's outbox, oldest
    /// first; none when the owner does not hold it.
    func held(from address: String, ownerID: String) async throws -> [WebInboxHeldMessage]

    /// Releases the inbox's held message `id` through the checks of a new submission; nil when the owner does not
    /// hold the inbox or it has no such message.
    func release(_ id: String, from address: String, ownerID: String) async throws -> WebInboxRelease?
}

/// A message an inbox sent whose recipients on other domains are held in this server's outbox.
public struct WebInboxHeldMessage: Sendable, Equatable {
    /// The outbox entry's id (what a release names).
    public var id: String
    /// The held recipients.
    public var recipients: [String]
    /// Unix seconds.
    public var createdAt: Int64
    /// Why they are held; nil when it was not recorded.
    public var reason: HeldReason?

    public init(id: String, recipients: [String], createdAt: Int64, reason: HeldReason?) {
        self.id = id
        self.recipients = recipients
        self.createdAt = createdAt
        self.reason = reason
    }
}

/// What a release of held mail came to.
public enum WebInboxRelease: Sendable, Equatable {
    /// Its recipients were queued to leave.
    case released
    /// The reason still holds.
    case stillHeld(HeldReason)
    /// A check of a new submission refused it (a sending limit, its size, the inbox's quota).
    case refused
}

/// A message an owner writes in the web inbox: plain text, to one or more addresses, maybe in reply to another.
public struct WebInboxDraft: Sendable, Equatable {
    /// The recipients' addresses (`a@example.com`), in the order written.
    public var to: [String]
    public var subject: String
    /// The text part.
    public var body: String
    /// The Message-IDs it replies to (`In-Reply-To`), without angle brackets.
    public var inReplyTo: [String] = []
    /// The thread's Message-IDs, oldest first (`References`), without angle brackets.
    public var references: [String] = []

    public init(to: [String], subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }
}

/// Where each recipient's copy of a sent message went.
public struct WebInboxSendReport: Sendable, Equatable {
    /// Delivered now to a mailbox of this server.
    public var delivered: [String] = []
    /// Queued to leave for another domain.
    public var queued: [String] = []
    /// Held in this server's outbox, not sent (mail to other domains does not leave this server, or not from this
    /// inbox): for ``heldReason``.
    public var kept: [String] = []
    /// Why ``kept`` were held (one reason for a send: it is the sender's standing); nil when none were.
    public var heldReason: HeldReason?
    /// Not delivered: the mailbox here is full.
    public var undelivered: [String] = []

    public init() {}
}

/// Why a message was not sent; nothing was, and no draft of it is left.
public struct WebInboxSendRefusal: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// A recipient is not an address.
        case invalidAddress
        /// These recipients are on a domain served here but have no mailbox (maybe none named).
        case unknownRecipients([String])
        /// The message names no recipient.
        case noRecipients
        /// The inbox reached a limit on recipients on other domains.
        case limitReached
        /// The inbox may not send now (no longer a mailbox here, or not the owner's).
        case notAllowed
        /// The inbox is full: the sent copy would pass its quota.
        case overQuota
        /// The message is too large, or cannot be written as it is.
        case unwritable
    }

    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }
}
