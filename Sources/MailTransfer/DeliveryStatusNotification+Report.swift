import MailDelivery

extension DeliveryStatusNotification: DeliveryReportWriter {
    /// The report for `failed`, recipients of `batch`, to its sender: ``build(original:sender:queueID:arrivalDate:
    /// outcomes:expired:now:)``.
    public func report(
        for batch: OutboundBatch, arrivalDate: Int64, failed: [OutboundOutcome], expired: Bool, now: Int64
    ) -> [UInt8] {
        build(
            original: batch.content, sender: batch.sender, queueID: batch.messageID, arrivalDate: arrivalDate,
            outcomes: failed, expired: expired, now: now)
    }
}
