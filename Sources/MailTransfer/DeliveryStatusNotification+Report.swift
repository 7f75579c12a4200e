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

    /// The delay notice for `delayed`, recipients of `batch`, to its sender: ``buildDelayNotice(original:sender:queueID:
    /// arrivalDate:outcomes:willRetryUntil:now:)``.
    public func delayNotice(
        for batch: OutboundBatch, arrivalDate: Int64, delayed: [OutboundOutcome], willRetryUntil: Int64, now: Int64
    ) -> [UInt8] {
        buildDelayNotice(
            original: batch.content, sender: batch.sender, queueID: batch.messageID, arrivalDate: arrivalDate,
            outcomes: delayed, willRetryUntil: willRetryUntil, now: now)
    }
}
