import Logging
import SMTPServer
import ServerMetrics

/// The one `info` line per SMTP transaction: who sent what to whom and how each step was answered, so that a test
/// suite's author sees why a message went nowhere. Never a body or a header: the envelope, the codes, the queue id
/// and the size.
enum SMTPTransactionLog {
    /// The observer an SMTP listener reports to: `metrics` first (nil: none), then the log line of each ended
    /// transaction.
    /// - Parameter listener: which listener (`smtp` or `sandbox`), in the line's metadata.
    static func observer(
        _ listener: String, metrics: PosternMetrics?, logger: Logger
    ) -> @Sendable (SMTPSessionEvent) -> Void {
        { event in
            metrics?.smtpEvent(event)
            if case .transactionEnded(let record) = event { log(record, listener: listener, logger: logger) }
        }
    }

    /// Writes `record` at `info`.
    static func log(_ record: SMTPTransactionRecord, listener: String, logger: Logger) {
        var metadata: Logger.Metadata = [
            "listener": .string(listener),
            "client": .string(record.client),
            "mail_from": .string(record.mailFrom.isEmpty ? "<>" : record.mailFrom),
            "rcpt": .string(record.recipients.map { "\($0.address) \($0.code)" }.joined(separator: ", ")),
        ]
        if let id = record.messageID { metadata["message_id"] = .string(id) }
        if let size = record.size { metadata["size"] = .stringConvertible(size) }
        metadata["result"] = .string(record.result.map(String.init) ?? "no message")
        logger.info("smtp transaction", metadata: metadata)
    }
}
