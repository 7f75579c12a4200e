import MailDelivery
import SMTPServer

/// SMTP's sink over local delivery: the recipient verdicts and refusals in SMTP's terms.
struct SMTPDeliverySink: SMTPMailSink {
    let delivery: LocalDelivery

    /// Local and existing: accept; local domain without such a mailbox: 550 5.1.1; any other domain: 550 5.7.1
    /// (no relay). When the accounts cannot be read, a local domain's recipient is accepted and the delivery fails
    /// with a temporary error instead of a permanent refusal.
    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        switch await delivery.verdict(forRecipient: address) {
        case .accept: .accept
        case .unknownLocal: .unknownLocal
        case .relayDenied: .relayDenied
        }
    }

    /// Stores the message with the server's `Received:` field on top. What can never be stored is an
    /// ``SMTPDeliveryRefusal`` (a permanent reply); storage errors stay as they are (a temporary one).
    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        do {
            return try await delivery.store(
                MailEnvelope(mailFrom: envelope.mailFrom, recipients: envelope.recipients),
                data: envelope.traceField + data)
        } catch let error as LocalDeliveryError {
            switch error {
            case .noLocalRecipient: throw SMTPDeliveryRefusal.noSuchRecipient
            case .unreadable: throw SMTPDeliveryRefusal.unreadableContent
            case .stored(.quotaExceeded): throw SMTPDeliveryRefusal.mailboxFull
            // A delivery sets no keywords but its X-Tags header's, which the store trims to its caps rather than
            // refuse: never met, and it would be the content's fault.
            case .stored(.keywordLimit): throw SMTPDeliveryRefusal.unreadableContent
            }
        }
    }
}
