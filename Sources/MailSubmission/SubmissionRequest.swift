import MailDelivery
import MailStore
import SMTPOutcomes

/// A message to send as its sender's mail (``Submitter/submit(_:now:)``): who sends it, the message (stored already,
/// or to keep in the sender's Sent with the submission), and the envelope's recipients. What a door hands over once it
/// has read its own language (JMAP's `EmailSubmission/set`, Mailpit's release, the submission listener's `DATA`).
public struct SubmissionRequest: Sendable, Equatable {
    /// The sender's copy of the message, the submission's `emailId`.
    public enum SenderCopy: Sendable, Equatable {
        /// Stored already, written in the sender's mailbox (JMAP's draft, Mailpit's message): its id and its thread as
        /// the ledger lists it (`EmailSubmission`'s `threadId`).
        case stored(emailID: String, threadID: String)
        /// Not stored yet (the submission listener's message): kept in the sender's Sent as written and seen, against
        /// the sender's quota, in the transaction that records the submission; the parsed message is the one parse
        /// every copy is stored from.
        case keepInSent(NewMailMessage)
    }

    /// What becomes of recipients on other domains that may not leave now (``OutsideStanding/held(_:)``).
    public enum HeldPolicy: Sendable, Equatable {
        /// They are kept in the outbox and recorded held with their reason; the rest of the submission goes on
        /// (JMAP: the `deliveryStatus` says so, an owner or the operator releases them later).
        case keepInOutbox
        /// The whole submission is refused with ``SubmissionRefusal/held(_:)`` (Mailpit's release, which relays now
        /// or not at all).
        case refuse
    }

    /// The sending address: the envelope's sender, the mailbox the message must have been written in, the address
    /// every originator field must name.
    public var sender: String
    /// The id the ledger keeps the submission under (a JMAP accountId); nil for the directory's account id of the
    /// sender, or its address when the directory names none (an agent inbox).
    public var accountID: String?
    /// The sender's copy: stored, or to keep in Sent.
    public var copy: SenderCopy
    /// The message's bytes as stored (or to be stored).
    public var raw: [UInt8]
    /// The envelope's `MAIL FROM`: the sender's address (compared as an address, ASCII case only).
    public var mailFrom: String
    /// The envelope's recipients, in order; repeats are dropped.
    public var recipients: [String]
    /// What becomes of held recipients on other domains. Default ``HeldPolicy/keepInOutbox``.
    public var whenHeld: HeldPolicy

    /// - Parameters: see the properties; `mailFrom` defaults to `sender`.
    public init(
        sender: String, emailID: String, threadID: String, raw: [UInt8], recipients: [String],
        accountID: String? = nil, mailFrom: String? = nil, whenHeld: HeldPolicy = .keepInOutbox
    ) {
        self.sender = sender
        self.accountID = accountID
        self.copy = .stored(emailID: emailID, threadID: threadID)
        self.raw = raw
        self.mailFrom = mailFrom ?? sender
        self.recipients = recipients
        self.whenHeld = whenHeld
    }

    /// A request whose sender's copy is `message`, kept in Sent with the submission (``SenderCopy/keepInSent(_:)``);
    /// `mailFrom` defaults to `sender`.
    public init(
        sender: String, keepingInSent message: NewMailMessage, recipients: [String], accountID: String? = nil,
        mailFrom: String? = nil, whenHeld: HeldPolicy = .keepInOutbox
    ) {
        self.sender = sender
        self.accountID = accountID
        self.copy = .keepInSent(message)
        self.raw = message.raw
        self.mailFrom = mailFrom ?? sender
        self.recipients = recipients
        self.whenHeld = whenHeld
    }
}

/// What a submission came to (``Submitter/submit(_:now:)``): the ledger's record, where each recipient's copy went
/// read from it.
public struct Submitted: Sendable, Equatable {
    /// The submission as the ledger recorded it, every recipient with its status.
    public var record: SubmissionRecord
    /// The envelope used (its recipients without repeats).
    public var envelope: SubmissionEnvelope
    /// Local recipients whose mailbox is full (recorded failed, as is an outside address suppressed after a bounce).
    public var undelivered: Int

    /// Local recipients whose mailbox took the message.
    public var delivered: Int { record.recipients.count { if case .delivered = $0.status { true } else { false } } }
    /// Recipients on other domains queued to leave.
    public var queued: Int { record.recipients.count { $0.status == .queued } }
    /// Recipients on other domains kept in the outbox, held for ``heldReason``.
    public var kept: Int { record.recipients.count { if case .held = $0.status { true } else { false } } }
    /// Why ``kept`` were held (one reason for a submission: it is the sender's standing); nil when none were.
    public var heldReason: HeldReason? {
        record.recipients.lazy.compactMap { if case .held(let reason) = $0.status { reason } else { nil } }.first
    }
}
