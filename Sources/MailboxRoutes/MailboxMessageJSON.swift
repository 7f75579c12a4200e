import MailboxAccounts
import HTTP1
import JSON
import MIME
import MailStore
import ServerKit

/// Mail.td's shapes of a stored message, shared by the accounts' messages, the operator's listing and the sandbox.
public enum MailboxMessageJSON {
    /// Messages per page of `GET .../messages` (Mail.td: 30), the sandbox's too.
    public static let messagesPerPage = 30

    /// Page `page` of `address`'s inbox as Mail.td lists it, newest first, ``messagesPerPage`` a page:
    /// `{"messages": [...], "page": N}`; an empty page when there is no address (a sandbox not made yet).
    public static func page(_ page: Int, of address: String?, in mail: MailStore) async throws -> HTTPResponse {
        var messages: [MailSummary] = []
        if let address { messages = try await mail.page(address: address, page: page, perPage: messagesPerPage) }
        return MailboxJSON.response(
            .ok,
            [
                ("messages", .array(messages.map { .object(summaryPairs($0)) })),
                ("page", .int(Int64(page))),
            ])
    }

    /// A message list object: `id`, `sender`, `from`, `subject`, `preview_text`, `size`, `is_read`, `created_at`.
    public static func summaryPairs(_ summary: MailSummary) -> [(String, JSONValue)] {
        let sender = summary.from.first?.email ?? summary.envelopeFrom
        return [
            ("id", .string(summary.id)), ("sender", .string(sender)),
            ("from", summary.from.first.map { .string(display($0)) } ?? .null),
            ("subject", summary.subject.map(JSONValue.string) ?? .null), ("preview_text", .string(summary.preview)),
            ("size", .int(summary.size)), ("is_read", .bool(summary.isRead)),
            ("created_at", MailboxJSON.time(summary.receivedAt)),
        ]
    }

    /// The message object of `GET .../messages/{id}`: the list object without its preview, then the address it is
    /// stored under, its recipients and id, whether it was read, its bodies and its attachments' descriptions.
    public static func detailPairs(_ message: MailMessageRecord, address: String) -> [(String, JSONValue)] {
        var pairs = summaryPairs(message.summary)
        pairs.removeAll { $0.0 == "preview_text" || $0.0 == "is_read" }
        return pairs + [
            ("address", .string(address)), ("to", addressList(message.to)), ("cc", addressList(message.cc)),
            ("message_id", message.messageID.map(JSONValue.string) ?? .null),
            ("is_read", .bool(message.summary.isRead)),
            ("text_body", message.textBody.map(JSONValue.string) ?? .null),
            ("html_body", message.htmlBody.map(JSONValue.string) ?? .null),
            ("attachments", attachmentList(message.attachments)),
        ]
    }

    /// `[{"index","filename","content_type","size"}]` of a message's attachments.
    public static func attachmentList(_ attachments: [MailAttachmentInfo]) -> JSONValue {
        .array(
            attachments.map { attachment in
                .object([
                    ("index", .int(Int64(attachment.position))),
                    ("filename", attachment.filename.map(JSONValue.string) ?? .null),
                    ("content_type", .string(attachment.contentType)), ("size", .int(attachment.size)),
                ])
            })
    }

    /// Each address as `Name <email>`, or the bare email.
    public static func addressList(_ addresses: [MailAddress]) -> JSONValue {
        .array(addresses.map { .string(display($0)) })
    }

    /// `Name <email>`, or the bare address without a name.
    public static func display(_ address: MailAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return address.email }
        return "\(name) <\(address.email)>"
    }

    /// A download of received bytes (a raw message, an attachment): ServerKit's one rule for them
    /// (``ReceivedBytes``: `attachment`, `nosniff`, the sandbox policy, `no-store`), with its type, as Mail.td's,
    /// mail.tm's, mail.cx's, the Pro sandbox's and the operator API's routes document it.
    public static func download(_ bytes: [UInt8], contentType: String, filename: String) -> HTTPResponse {
        ReceivedBytes.response(bytes, contentType: contentType, .attachment(filename: filename))
    }
}
