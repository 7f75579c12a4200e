import EmailAddresses
import MailDelivery
import MailStore
import SMTPOutcomes

/// Whether a sender's recipients on other domains may leave, and where submissions are recorded: the ledger (the
/// outbound queue, given by the composition root through MailDelivery's port), the outbound mode, the sender rule, the
/// send limits and the size limit (all from the queue's configuration, `OutboundQueueConfiguration`). The admission of
/// ``Submitter`` (every new submission, whichever door it came by) and of a release of held mail: a submission is
/// always recorded (issue 67 item 5); with outbound delivery off, its outside recipients are recorded held
/// (`outbound_off`).
public struct OutboundAdmission: Sendable {
    /// Where submissions are recorded and read back.
    public var ledger: any SubmissionLedger
    /// False when outbound delivery is `off`: outside recipients are kept in the outbox, as before, and recorded held.
    public var sendsOutside: Bool
    /// What the sender rule (`POSTERN_OUTBOUND_SENDERS`) says of the account at this address: whether it may send
    /// outside and who answers for it. When it may not, its outside recipients stay in the outbox with a
    /// `deliveryStatus` saying why.
    public var sender: @Sendable (String) async throws -> OutsideSender
    /// The limits on outside recipients (per sender hourly and daily, per owner hourly); past one,
    /// ``SubmissionRefusal/limit(_:)``.
    public var limits: [SendLimit]
    /// The largest message queued to leave, in bytes (`POSTERN_OUTBOUND_MAX_MESSAGE_BYTES`); past it,
    /// ``SubmissionRefusal/tooLarge(maxBytes:)``.
    public var maxMessageBytes: Int

    /// - Parameters: see the properties.
    public init(
        ledger: any SubmissionLedger, sendsOutside: Bool, limits: [SendLimit], maxMessageBytes: Int = 25 * 1024 * 1024,
        sender: @escaping @Sendable (String) async throws -> OutsideSender
    ) {
        self.ledger = ledger
        self.sendsOutside = sendsOutside
        self.limits = limits
        self.sender = sender
        self.maxMessageBytes = maxMessageBytes
    }

    /// Whether a stored message may be sent as it stands by `sender`: only when it was written (`origin` is
    /// ``MailOrigin/written``) in `sender`'s own mailbox (`address`, the copy's). A received message's header is
    /// someone else's, its `From` among it, whatever address it names: it is never submitted, and so never signed for
    /// a domain it did not come from; it is forwarded in a new message (review 5; issue 81 item 7).
    public static func maySubmit(_ origin: MailOrigin?, storedAt address: String, as sender: String) -> Bool {
        origin == .written && EmailAddress.same(address, sender)
    }

    /// What becomes of `sender`'s recipients on other domains now: they leave (and who answers for them), or they
    /// are held and why. The one decision of a new submission, of a release of held mail and of the dispatcher's
    /// check before each attempt.
    /// - Throws: the sender rule's storage errors.
    public func standing(of sender: String) async throws -> OutsideStanding {
        guard sendsOutside else { return .held(.outboundOff) }
        switch try await self.sender(sender) {
        case .allowed(let holder): return .leaves(holder: holder)
        case .notAccountable: return .held(.needsOwner)
        case .awaitingApproval: return .held(.awaitingApproval)
        }
    }
}

/// What becomes of a sender's recipients on other domains (``OutboundAdmission/standing(of:)``).
public enum OutsideStanding: Sendable, Equatable {
    /// They are queued to leave; `holder` answers for them (their owner's limits count them), nil when nobody does.
    case leaves(holder: SubmissionHolder?)
    /// They stay in the outbox, for this reason.
    case held(HeldReason)
}
