/// Writes the delivery status notification (RFC 3464) that tells a sender which recipients of a batch failed for
/// good: the port through which the outbound queue, which decides when a report is due and stores it, has it written
/// (MailTransfer's `DeliveryStatusNotification` conforms). Pure: the same input gives the same bytes.
public protocol DeliveryReportWriter: Sendable {
    /// The report's text (CRLF line ends) for `failed`, recipients of `batch`.
    /// - Parameters:
    ///   - arrivalDate: when the message was queued, Unix seconds.
    ///   - expired: the message outlived the queue (the text says so, the status is made permanent).
    ///   - now: Unix seconds: the report's `Date` and each `Last-Attempt-Date`.
    func report(for batch: OutboundBatch, arrivalDate: Int64, failed: [OutboundOutcome], expired: Bool, now: Int64)
        -> [UInt8]
}
