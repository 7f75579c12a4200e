import MailDelivery

/// How the queue bounces: the sender's mailbox and the report's writer. ``OutboundQueue/complete(_:_:now:)`` writes
/// one delivery status notification per completed batch with recipients that failed for good (a `5xx`, or the queue
/// lifetime run out), into the sender's inbox, in the transaction that records those failures, and links it to the
/// submission (`EmailSubmission`'s `dsnBlobIds`).
public struct OutboundBounces: Sendable {
    /// Where a sender's bounce goes (the local mail store through ``LocalDelivery``).
    public var mailbox: any BounceMailbox
    /// What writes it (MailTransfer's `DeliveryStatusNotification`).
    public var writer: any DeliveryReportWriter

    /// - Parameters: see the properties.
    public init(mailbox: any BounceMailbox, writer: any DeliveryReportWriter) {
        self.mailbox = mailbox
        self.writer = writer
    }
}
