import JSON
import MIME
import MailStore
import Time

/// Mailpit's JSON shapes (`internal/storage/structs.go`, `server/apiv1/structs.go`) made from the store's records:
/// `MessageSummary`, `Message`, `Attachment`, `Address` and the headers object.
enum MailpitJSON {
    /// Mailpit's `Address`: `{"Name","Address"}`.
    static func address(_ address: MailAddress) -> JSONValue {
        .object([("Name", .string(address.name ?? "")), ("Address", .string(address.email))])
    }

    /// Mailpit's `From`: the first `From` address; an empty `Address` when the message has none (Mailpit writes
    /// null there, which its own schema does not allow).
    static func from(_ addresses: [MailAddress]) -> JSONValue {
        addresses.first.map(address) ?? .object([("Name", .string("")), ("Address", .string(""))])
    }

    static func addresses(_ list: [MailAddress]) -> JSONValue { .array(list.map(address)) }

    /// The tags of a message: its keywords that spell one (``MailTag``), sorted.
    static func tags(_ summary: MailSummary) -> JSONValue {
        .array(summary.keywords.compactMap(MailTag.tag).sorted().map(JSONValue.string))
    }

    /// Whether a part is shown in the body (Mailpit's `Inline`) rather than one to download (`Attachments`): the
    /// rule of the store's `has:inline` filter.
    static func isInline(_ part: MailAttachmentInfo) -> Bool {
        part.disposition?.lowercased() == "inline" || (part.disposition == nil && part.contentID != nil)
    }

    /// Mailpit's `PartID` of attachment `position`: its number from 1.
    static func partID(_ position: Int) -> String { String(position + 1) }

    /// The position a `PartID` names; nil for anything else.
    static func position(ofPart text: String) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text),
            number >= 1
        else { return nil }
        return number - 1
    }

    /// Mailpit's `MessageSummary` of `record`, with the `Read` its 2023 clients read.
    static func summary(_ record: MailMessageRecord) -> JSONValue {
        let summary = record.summary
        return .object([
            ("ID", .string(summary.id)), ("MessageID", .string(messageID(record))),
            ("Read", .bool(summary.isRead)), ("From", from(summary.from)), ("To", addresses(record.to)),
            ("Cc", addresses(record.cc)), ("Bcc", addresses(bcc(record))), ("ReplyTo", addresses(record.replyTo)),
            ("Subject", .string(summary.subject ?? "")), ("Created", .string(RFC3339.format(summary.receivedAt))),
            ("Username", .string("")), ("Tags", tags(summary)), ("Size", .int(summary.size)),
            ("Attachments", .int(Int64(record.attachments.filter { !isInline($0) }.count))),
            ("Snippet", .string(String(summary.preview.prefix(250)))),
        ])
    }

    /// Mailpit's `Message` of `record`, with `Read` besides (the 2023 client reads it).
    static func message(_ record: MailMessageRecord) -> JSONValue {
        let summary = record.summary
        func part(_ info: MailAttachmentInfo) -> JSONValue {
            .object([
                ("PartID", .string(partID(info.position))), ("FileName", .string(info.filename ?? "")),
                ("ContentType", .string(info.contentType)), ("ContentID", .string(info.contentID ?? "")),
                ("Size", .int(info.size)),
            ])
        }
        return .object([
            ("ID", .string(summary.id)), ("MessageID", .string(messageID(record))),
            ("Read", .bool(summary.isRead)), ("From", from(summary.from)), ("To", addresses(record.to)),
            ("Cc", addresses(record.cc)), ("Bcc", addresses(bcc(record))), ("ReplyTo", addresses(record.replyTo)),
            ("ReturnPath", .string(summary.envelopeFrom)), ("Subject", .string(summary.subject ?? "")),
            (
                "ListUnsubscribe",
                .object([
                    ("Header", .string("")), ("Links", .array([])), ("Errors", .string("")),
                    ("HeaderPost", .string("")),
                ])
            ),
            ("Date", .string(RFC3339.format(record.sentAt ?? summary.receivedAt))), ("Tags", tags(summary)),
            ("Username", .string("")), ("Text", .string(record.textBody ?? "")),
            ("HTML", .string(record.htmlBody ?? "")), ("Size", .int(summary.size)),
            ("Inline", .array(record.attachments.filter(isInline).map(part))),
            ("Attachments", .array(record.attachments.filter { !isInline($0) }.map(part))),
        ])
    }

    /// The headers object of `GET /message/{ID}/headers`: each field name in Go's canonical form (`Message-Id`,
    /// `Content-Type`) with its values in order, as Go's `net/mail` reads them, and what Mailpit's SMTP server writes
    /// into a message it stores (`internal/smtpd/main.go`): a `Message-Id` when it has none (``messageID(_:)``), the
    /// envelope sender as `Return-Path`, and the envelope recipients no address field names as one more `Bcc`. The
    /// fields the 2023 `mailpit-api-client` requires (``clientFields``) are always there, `[]` when the message has
    /// none: Mailpit leaves them out, and that client's `get_message_headers` raises `KeyError` on such a message.
    static func headers(_ fields: [MailHeader], of record: MailMessageRecord) -> JSONValue {
        var order: [String] = []
        var values: [String: [String]] = [:]
        func add(_ name: String, _ value: String?) {
            if values[name] == nil { order.append(name) }
            values[name, default: []] += value.map { [$0] } ?? []
        }
        for field in fields where canonicalName(field.name) != "Return-Path" || record.summary.envelopeFrom.isEmpty {
            add(canonicalName(field.name), field.value)
        }
        if !record.summary.envelopeFrom.isEmpty { add("Return-Path", "<\(record.summary.envelopeFrom)>") }
        if values["Message-Id"] == nil { add("Message-Id", "<\(messageID(record))>") }
        let unnamed = bcc(record).dropFirst(record.bcc.count).map(\.email)
        if !unnamed.isEmpty { add("Bcc", unnamed.joined(separator: ", ")) }
        for name in clientFields where values[name] == nil { add(name, nil) }
        return .object(order.map { ($0, .array(values[$0, default: []].map(JSONValue.string))) })
    }

    /// The header fields the 2023 `mailpit-api-client`'s `Headers` model requires.
    static let clientFields = ["Content-Type", "Date", "Delivered-To", "From", "Message-Id"]

    /// The message's `Message-ID`, or, for a message without one, the id Mailpit would have written into it
    /// (`<generated>@mailpit`), made of the message's own id so that every answer gives the same.
    static func messageID(_ record: MailMessageRecord) -> String {
        record.messageID ?? "\(record.summary.id)@mailpit"
    }

    /// Mailpit's `Bcc` of `record`: the field's addresses, then each envelope recipient (`RCPT TO`) that neither `To`,
    /// `Cc` nor `Bcc` names, which Mailpit adds to the `Bcc` of the message it stores.
    static func bcc(_ record: MailMessageRecord) -> [MailAddress] {
        var named = Set((record.to + record.cc + record.bcc).map { $0.email.lowercased() })
        var unnamed: [MailAddress] = []
        for recipient in record.summary.envelopeTo where named.insert(recipient.lowercased()).inserted {
            unnamed.append(MailAddress(email: recipient))
        }
        return record.bcc + unnamed
    }

    /// Go's `textproto.CanonicalMIMEHeaderKey`: the first letter and each letter after a `-` upper case, the rest
    /// lower case; a name with a space or a character outside a token stays as it is.
    static func canonicalName(_ name: String) -> String {
        guard name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 && $0 != ":" }) else {
            return name
        }
        var upper = true
        return String(
            name.map { character -> Character in
                defer { upper = character == "-" }
                return upper ? Character(character.uppercased()) : Character(character.lowercased())
            })
    }
}
