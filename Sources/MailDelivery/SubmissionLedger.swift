import SMTPOutcomes
import Storage

/// Where a mail API records what it submitted, and reads it back: the port between JMAP's `EmailSubmission` and the
/// outbound queue (which implements it), so that neither knows the other.
///
/// A record is one transaction: the submission, every recipient's disposition and, when a recipient is to leave, the
/// message, and the mail store's writes the submission made (the sender's copy, the local recipients' copies, the
/// outbox), on the database the store and the ledger share. A submission acknowledged is therefore a message queued
/// and delivered, and a refused or failed one leaves nothing behind.
public protocol SubmissionLedger: Sendable {
    /// Runs `writing` on a connection of the ledger's database in one write transaction, then records the submission
    /// it returns in that transaction, and returns it as stored: a queued recipient whose address is suppressed
    /// after a hard bounce is `failed` at once, with the suppression as its reply.
    /// - Parameters:
    ///   - limits: the sender's limits; the recipients queued to leave count against each, in the same transaction.
    ///   - now: Unix seconds.
    ///   - writing: the submission's other writes (the mail store's, on the same database), returning the submission
    ///     to record; runs once, on the writer, and must not wait on anything else.
    /// - Throws: ``SendLimitReached`` when a limit would be passed; what `writing` throws; storage errors. Nothing of
    ///   the transaction (`writing`'s writes included) is kept when it throws.
    func record(
        limits: [SendLimit], now: Int64,
        writing: @escaping @Sendable (any SQLConnection) throws -> NewSubmission
    ) async throws -> SubmissionRecord

    /// Checks, before anything is sent, that `adding` more outside recipients of `sender` fit `limits` now; the limits
    /// of scope ``SendLimit/Scope/holder`` count every sender of `holder` together (none when `holder` is nil).
    /// - Throws: ``SendLimitReached`` naming the first limit they would pass.
    func checkLimits(
        _ limits: [SendLimit], sender: String, holder: SubmissionHolder?, adding: Int, now: Int64
    ) async throws

    /// Bytes of `sender`'s messages still waiting in the queue (a message leaves once none of its recipients is
    /// queued): what counts against the sender's quota besides its mailbox, so that a sender cannot park more mail
    /// in the queue than its quota by deleting each Sent copy.
    func queuedBytes(sender: String) async throws -> Int64

    /// The submissions of `accountID` with the given ids (those that exist, in the order asked), or every one of the
    /// account's, oldest first, when `ids` is nil.
    func submissions(accountID: String, ids: [String]?) async throws -> [SubmissionRecord]

    /// Moves the held recipients `addresses` of submission `submissionID` on to the queue with `content`, `holder`
    /// answering for them, checked against `limits` in the same transaction; returns how many moved.
    /// - Throws: ``SendLimitReached`` (nothing moved); storage errors.
    func release(
        submissionID: String, addresses: [String], content: [UInt8], holder: SubmissionHolder?, limits: [SendLimit],
        now: Int64
    ) async throws -> Int

    /// Why each of the submissions `submissionIDs` has recipients held, as recorded, by submission id: one read for
    /// a whole list; a submission none of whose recipients is held (or that does not exist) is absent.
    func heldReasons(submissionIDs: [String]) async throws -> [String: HeldReason]

    /// The account's current `EmailSubmission` state.
    func state(accountID: String) async throws -> String

    /// What changed in the account's submissions since `state`, at most `maxChanges` of them; nil when `state` is
    /// not one this ledger can calculate from (not a state it gave, or a future one).
    func changes(accountID: String, since state: String, maxChanges: Int) async throws -> SubmissionChanges?
}

extension SubmissionLedger {
    /// Records `submission` alone (``record(limits:now:writing:)`` with no other write).
    /// - Throws: ``SendLimitReached`` (nothing recorded) when a limit would be passed; storage errors (nothing
    ///   recorded).
    public func record(_ submission: NewSubmission, limits: [SendLimit], now: Int64) async throws -> SubmissionRecord {
        try await record(limits: limits, now: now) { _ in submission }
    }
}

/// A submission about to be recorded.
public struct NewSubmission: Sendable, Equatable {
    /// The `EmailSubmission` id.
    public var id: String
    /// The submitting account (and identity).
    public var accountID: String
    /// The account's address: the envelope sender.
    public var sender: String
    public var emailID: String
    public var threadID: String
    /// Unix seconds.
    public var sendAt: Int64
    /// Who answers for the sender (an owner, from the sender rule), recorded with the submission: the limits of
    /// scope ``SendLimit/Scope/holder`` count every submission of theirs. Nil when nobody is named.
    public var holder: SubmissionHolder?
    /// Every recipient of the envelope, in order, with what became of it already.
    public var recipients: [SubmissionRecipient]
    /// The message as submitted (kept only when a recipient is queued).
    public var content: [UInt8]
    /// The envelope used, kept with the submission; nil records none (`EmailSubmission/get` then says `null`).
    public var envelope: SubmissionEnvelope?

    /// - Parameters: see the properties.
    public init(
        id: String, accountID: String, sender: String, emailID: String, threadID: String, sendAt: Int64,
        holder: SubmissionHolder? = nil, recipients: [SubmissionRecipient], content: [UInt8],
        envelope: SubmissionEnvelope? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.sender = sender
        self.emailID = emailID
        self.threadID = threadID
        self.sendAt = sendAt
        self.holder = holder
        self.recipients = recipients
        self.content = content
        self.envelope = envelope
    }
}

/// A recipient's status as a ledger records it: the one ``DeliveryStatus`` with the reply lines stored (for display
/// only: decisions switch on the case).
public typealias RecordedStatus = DeliveryStatus<String, String>

/// One recipient of a ``NewSubmission`` and what became of it before the submission was recorded: a local recipient
/// ``DeliveryStatus/delivered(_:)`` (`250 ...`) or ``DeliveryStatus/failed(_:)`` (`552 ...`, its mailbox full); an
/// outside one ``DeliveryStatus/queued`` to leave through the queue, or ``DeliveryStatus/held(_:)`` in the outbox
/// (no delivery, or a sender that may not send outside) with the reason. Never deferred.
public struct SubmissionRecipient: Sendable, Equatable {
    public var address: String
    public var status: RecordedStatus

    /// - Parameters: see the properties.
    public init(address: String, status: RecordedStatus) {
        self.address = address
        self.status = status
    }
}

/// A recorded submission, with each recipient's disposition now.
public struct SubmissionRecord: Sendable, Equatable {
    public var id: String
    public var accountID: String
    public var sender: String
    public var emailID: String
    public var threadID: String
    /// Unix seconds.
    public var sendAt: Int64
    /// In envelope order.
    public var recipients: [RecipientState]
    /// The envelope kept with the submission; nil when none was (a submission recorded before it was kept).
    public var envelope: SubmissionEnvelope?
    /// The delivery status notifications put in the sender's inbox for it, oldest first: their email ids
    /// (`EmailSubmission`'s `dsnBlobIds` name their blobs).
    public var bounceEmailIDs: [String]

    /// - Parameters: see the properties.
    public init(
        id: String, accountID: String, sender: String, emailID: String, threadID: String, sendAt: Int64,
        recipients: [RecipientState], envelope: SubmissionEnvelope? = nil, bounceEmailIDs: [String] = []
    ) {
        self.id = id
        self.accountID = accountID
        self.sender = sender
        self.emailID = emailID
        self.threadID = threadID
        self.sendAt = sendAt
        self.recipients = recipients
        self.envelope = envelope
        self.bounceEmailIDs = bounceEmailIDs
    }
}

/// Where one recipient of a submission stands: ``DeliveryStatus/queued`` before its first attempt,
/// ``DeliveryStatus/deferred(_:)`` while it waits after one (JMAP's `delivered: "queued"` either way),
/// ``DeliveryStatus/delivered(_:)`` (`"yes"`), ``DeliveryStatus/failed(_:)`` for good (a 5xx, the queue lifetime's end,
/// a suppressed address, a full local mailbox: `"no"`), ``DeliveryStatus/held(_:)`` in the outbox, never sent
/// (`"no"`).
public struct RecipientState: Sendable, Equatable {
    public var address: String
    public var status: RecordedStatus

    /// - Parameters: see the properties.
    public init(address: String, status: RecordedStatus) {
        self.address = address
        self.status = status
    }

    /// The reply a queued recipient shows until an attempt ends.
    public static let queuedReply = "250 2.0.0 queued for delivery"

    /// The last SMTP reply, for display (the remote's, or Postern's own account in the same shape).
    public var smtpReply: String {
        switch status {
        case .queued: Self.queuedReply
        case .held(let reason): Self.heldReply(reason)
        case .delivered(let line), .deferred(let line), .failed(let line): line
        }
    }

    /// The reply a held recipient shows: kept in the outbox, not sent, and why in words. Outbound delivery turned off
    /// is the operator's choice (`250`); a sender that may not write outside is a policy refusal (`550 5.7.1`).
    public static func heldReply(_ reason: HeldReason) -> String {
        let code =
            switch reason {
            case .outboundOff: "250 2.0.0"
            case .needsOwner, .awaitingApproval: "550 5.7.1"
            }
        return "\(code) held in this server's outbox, not sent: \(reason.explanation)"
    }
}

/// The changes of an account's submissions since a state (RFC 8620 5.2).
public struct SubmissionChanges: Sendable, Equatable {
    public var newState: String
    public var hasMoreChanges: Bool
    /// Submissions recorded since the old state.
    public var created: [String]
    /// Submissions recorded before it whose recipients moved since.
    public var updated: [String]

    /// - Parameters: see the properties.
    public init(newState: String, hasMoreChanges: Bool, created: [String], updated: [String]) {
        self.newState = newState
        self.hasMoreChanges = hasMoreChanges
        self.created = created
        self.updated = updated
    }
}

/// A limit on outside recipients: at most ``count`` queued to leave in any ``windowSeconds``, counted per sender or
/// per holder (``scope``).
public struct SendLimit: Sendable, Equatable {
    /// What a limit counts together.
    public enum Scope: Sendable, Equatable {
        /// The submissions of one sender address.
        case sender
        /// The submissions of every sender one holder answers for (an owner's inboxes together), whichever inbox sent
        /// them and whether it is still theirs; a submission nobody answers for is not counted, nor checked.
        case holder
    }

    /// How the limit is named to the sender ("hourly", "daily").
    public var name: String
    public var count: Int
    public var windowSeconds: Int64
    /// What it counts together. Default ``Scope/sender``.
    public var scope: Scope

    /// - Parameters: see the properties.
    public init(name: String, count: Int, windowSeconds: Int64, scope: Scope = .sender) {
        self.name = name
        self.count = count
        self.windowSeconds = windowSeconds
        self.scope = scope
    }
}

/// A submission refused because it would pass one of the sender's limits; nothing was recorded.
public struct SendLimitReached: Error, Sendable, Equatable {
    /// The limit it would pass.
    public var limit: SendLimit
    /// Unix seconds when enough of the window's sends have aged out of it for this submission to fit (at the latest).
    public var freesAt: Int64

    /// - Parameters: see the properties.
    public init(limit: SendLimit, freesAt: Int64) {
        self.limit = limit
        self.freesAt = freesAt
    }
}
