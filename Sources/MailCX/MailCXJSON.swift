import JSON
import MIME
import MailStore
import Time

/// mail.cx's email objects. Pure: a stored message in, JSON out.
public enum MailCXJSON {
    /// An email of the inbox list: `id`, `address`, `from_email` (the From address, else the envelope sender),
    /// `from` (the From field as written: `Name <address>`), `subject`, `preview_text` (at most 100 characters),
    /// `size`, `created_at` (RFC 3339, UTC).
    public static func summary(_ summary: MailSummary) -> JSONValue {
        .object(summaryPairs(summary))
    }

    /// `GET /email/{id}`: the summary's members with `to`, `text`, `html` and `attachments` (`index`, `filename`,
    /// `content_type`, `size`; zero-based, as `/attachments/{i}` reads them).
    public static func email(_ record: MailMessageRecord) -> JSONValue {
        .object(
            summaryPairs(record.summary) + [
                ("to", .array(record.to.map { .string($0.email) })), ("text", .string(record.textBody ?? "")),
                ("html", .string(record.htmlBody ?? "")),
                ("attachments", .array(record.attachments.map(attachment))),
            ])
    }

    private static func summaryPairs(_ summary: MailSummary) -> [(String, JSONValue)] {
        let sender = summary.from.first
        let fromEmail = sender?.email ?? summary.envelopeFrom
        let from = sender.map { address in
            address.name.map { "\($0) <\(address.email)>" } ?? address.email
        } ?? summary.envelopeFrom
        return [
            ("id", .string(summary.id)), ("address", .string(summary.address)), ("from_email", .string(fromEmail)),
            ("from", .string(from)), ("subject", .string(summary.subject ?? "")),
            ("preview_text", .string(String(summary.preview.prefix(100)))), ("size", .int(summary.size)),
            ("created_at", .string(RFC3339.format(summary.receivedAt))),
        ]
    }

    private static func attachment(_ info: MailAttachmentInfo) -> JSONValue {
        .object([
            ("index", .int(Int64(info.position))), ("filename", .string(info.filename ?? "attachment-\(info.position)")),
            ("content_type", .string(info.contentType)), ("size", .int(info.size)),
        ])
    }
}
