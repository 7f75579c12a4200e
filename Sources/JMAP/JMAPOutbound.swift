import MailDelivery

/// How `EmailSubmission/set` records what it sends and whether outside recipients may leave: the ledger (the outbound
/// queue, given by the composition root through MailDelivery's port), the outbound mode and the sender rules.
///
/// Without one, a JMAP service keeps every outside recipient in the outbox and records nothing (`EmailSubmission/get`
/// finds nothing), as before outbound delivery existed.
public struct JMAPOutbound: Sendable {
    /// Where submissions are recorded and read back.
    public var ledger: any SubmissionLedger
    /// False when outbound delivery is `off`: outside recipients are kept in the outbox, as before, and recorded held.
    public var sendsOutside: Bool
    /// What the sender rule (`POSTERN_OUTBOUND_SENDERS`) says of the account at this address: whether it may send
    /// outside and who answers for it. When it may not, its outside recipients stay in the outbox with a
    /// `deliveryStatus` saying why.
    public var sender: @Sendable (String) async throws -> OutsideSender
    /// The limits on outside recipients (per sender hourly and daily, per owner hourly); past one, `forbiddenToSend`.
    public var limits: [SendLimit]
    /// The largest message queued to leave, in bytes (`POSTERN_OUTBOUND_MAX_MESSAGE_BYTES`); past it, `tooLarge`.
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

    /// The `deliveryStatus` reply of an outside recipient kept in the outbox because nothing leaves this server.
    static let outboxReply = "250 2.0.0 kept in this server's outbox: Postern does not send mail to other domains"

    /// The reply of an outside recipient kept in the outbox because its sender may not send outside (`refusal` is
    /// not ``OutsideSender/allowed(holder:)``).
    static func notAllowedReply(_ sender: String, _ refusal: OutsideSender) -> String {
        switch refusal {
        case .awaitingApproval:
            "550 5.7.1 kept in this server's outbox: \(sender) may not send to other domains until the operator "
                + "approves its owner (POSTERN_OUTBOUND_SENDERS=owned)"
        case .notAccountable, .allowed:
            "550 5.7.1 kept in this server's outbox: \(sender) may not send to other domains "
                + "(only inboxes an owner holds may, POSTERN_OUTBOUND_SENDERS=owned)"
        }
    }
}
