import JSON
import MailStore
import MailboxAccounts
import MailboxRoutes
import ServerKit
import Time

/// The body of an `email.received` delivery (Mail.td's, after mail.cx's documentation):
/// `{"id","type","created_at","data":{"email_id","account_id","address","from","sender","subject","preview_text",
/// "size","created_at"}}`. The same bytes for every attempt of an event; only the timestamp and signature headers
/// change.
enum WebhookPayload {
    static func body(_ job: WebhookJob) -> [UInt8] {
        let (from, sender) = fromHeader(job.fromJSON, envelopeFrom: job.envelopeFrom)
        let created = JSONValue.string(RFC3339.format(job.receivedAt))
        let data: [(String, JSONValue)] = [
            ("email_id", .string(job.messageID)), ("account_id", job.accountID.map(JSONValue.string) ?? .null),
            ("address", .string(job.address)), ("from", .string(from)), ("sender", .string(sender)),
            ("subject", .string(job.subject ?? "")), ("preview_text", .string(job.preview)), ("size", .int(job.size)),
            ("created_at", created),
        ]
        return JSONValue.object([
            ("id", .string(job.eventID)), ("type", .string(job.eventType)), ("created_at", created),
            ("data", .object(data)),
        ]).serialize()
    }

    /// `Name <email>` (or the bare email) of the first `From` address, and that email; the envelope sender when the
    /// message has no readable `From`.
    static func fromHeader(_ json: String, envelopeFrom: String) -> (from: String, sender: String) {
        guard let first = MailStore.addresses(json).first else { return (envelopeFrom, envelopeFrom) }
        return (MailboxMessageJSON.display(first), first.email)
    }
}
