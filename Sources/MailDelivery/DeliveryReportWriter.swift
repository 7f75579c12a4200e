/// Writes the delivery status notifications (RFC 3464) that tell a sender what became of a batch: the bounce of the
/// recipients that failed for good and the delay notice of those still deferred. The port through which the outbound
/// queue, which decides when a report is due and stores it, has it written (MailTransfer's `DeliveryStatusNotification`
/// conforms). Pure: the same input gives the same bytes.
public protocol DeliveryReportWriter: Sendable {
    /// The bounce's text (CRLF line ends) for `failed`, recipients of `batch`.
    /// - Parameters:
    ///   - arrivalDate: when the message was queued, Unix seconds.
    ///   - expired: the message outlived the queue (the text says so, the status is made permanent).
    ///   - now: Unix seconds: the report's `Date` and each `Last-Attempt-Date`.
    func report(for batch: OutboundBatch, arrivalDate: Int64, failed: [OutboundOutcome], expired: Bool, now: Int64)
        -> [UInt8]

    /// The delay notice's text (CRLF line ends, `Action: delayed`) for `delayed`, recipients of `batch` still deferred.
    /// - Parameters:
    ///   - arrivalDate: when the message was queued, Unix seconds.
    ///   - willRetryUntil: when the queue gives up on them, Unix seconds.
    ///   - now: Unix seconds: the report's `Date` and each `Last-Attempt-Date`.
    func delayNotice(
        for batch: OutboundBatch, arrivalDate: Int64, delayed: [OutboundOutcome], willRetryUntil: Int64, now: Int64
    ) -> [UInt8]
}
