import MailDelivery

/// How the queue reports to a sender: the sender's mailbox and the reports' writer.
/// ``OutboundQueue/complete(_:_:now:)`` writes, in the transaction that records a completed batch, into the sender's inbox: one bounce when recipients
/// failed for good (a `5xx`, or the queue lifetime run out), linked to the submission (`EmailSubmission`'s
/// `dsnBlobIds`), and one delay notice when recipients were deferred past
/// ``OutboundQueueConfiguration/delayNoticeSeconds`` (each recipient once).
public struct SenderReports: Sendable {
    /// Where a sender's reports go (the local mail store through ``LocalDelivery``).
    public var mailbox: any SenderReportMailbox
    /// What writes them (MailTransfer's `DeliveryStatusNotification`).
    public var writer: any DeliveryReportWriter

    /// - Parameters: see the properties.
    public init(mailbox: any SenderReportMailbox, writer: any DeliveryReportWriter) {
        self.mailbox = mailbox
        self.writer = writer
    }
}
