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
    /// Whether the account at this address may send outside (`POSTERN_OUTBOUND_SENDERS`); when it may not, its
    /// outside recipients stay in the outbox with a `deliveryStatus` saying why.
    public var mayReachOutside: @Sendable (String) async throws -> Bool
    /// The per-sender limits on outside recipients (hourly, daily); past one, `forbiddenToSend`.
    public var limits: [SendLimit]

    /// - Parameters: see the properties.
    public init(
        ledger: any SubmissionLedger, sendsOutside: Bool, limits: [SendLimit],
        mayReachOutside: @escaping @Sendable (String) async throws -> Bool
    ) {
        self.ledger = ledger
        self.sendsOutside = sendsOutside
        self.limits = limits
        self.mayReachOutside = mayReachOutside
    }

    /// The `deliveryStatus` reply of an outside recipient kept in the outbox because nothing leaves this server.
    static let outboxReply = "250 2.0.0 kept in this server's outbox: Postern does not send mail to other domains"

    /// The reply of an outside recipient kept in the outbox because its sender may not send outside.
    static func notAllowedReply(_ sender: String) -> String {
        "550 5.7.1 kept in this server's outbox: \(sender) may not send to other domains "
            + "(only inboxes an owner holds may, POSTERN_OUTBOUND_SENDERS=owned)"
    }
}
