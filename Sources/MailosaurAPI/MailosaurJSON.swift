import JSON
import MIME
import MailExtraction
import MailStore
import Time

/// Mailosaur's JSON shapes (the models of its SDKs: `Server`, `MessageSummary`, `Message`, `MessageContent`, `Link`,
/// `Code`, `Attachment`, `Metadata`) made from the store's records and the extraction stored with each message.
///
/// Postern finds a message's codes once, from its subject and body together (``MessageExtraction``), not part by part
/// as Mailosaur does: `html.codes` and `text.codes` each carry the message's codes, best first, when the message has
/// that part. A link is in `text.links` when its URL is written in the text part (its `text` is the URL, as
/// Mailosaur's), in `html.links` when the HTML part has it (its `text` the visible text, null when there is none);
/// links come in the extraction's order, verify, sign-in and reset links first.
enum MailosaurJSON {
    /// `MessageAddress`: `{"name","email"}`, the name empty when the field gives none.
    static func address(_ address: MailAddress) -> JSONValue {
        .object([("name", .string(address.name ?? "")), ("email", .string(address.email))])
    }

    static func addresses(_ list: [MailAddress]) -> JSONValue { .array(list.map(address)) }

    /// `Server`: `{"id","name","users","messages"}`; no user is named (a server is shared by whoever holds its
    /// credential).
    static func server(_ server: MailosaurServer, messages: Int) -> JSONValue {
        .object([
            ("id", .string(server.id)), ("name", .string(server.name)), ("users", .array([])),
            ("messages", .int(Int64(messages))),
        ])
    }

    /// `MessageSummary` of `record` in the server `serverID`: `attachments` is how many it has, `summary` the start of
    /// its text.
    static func summary(_ record: MailMessageRecord, server serverID: String) -> JSONValue {
        .object(
            heading(record, server: serverID) + [
                ("summary", .string(record.summary.preview)),
                ("attachments", .int(Int64(record.attachments.count))),
            ])
    }

    /// `Message` of `record` in the server `serverID`, with what the extraction found (`nil`: none stored yet, so no
    /// code and no link), the message's header fields and the URL its attachments are read from (`files` ends with
    /// `/`).
    static func message(
        _ record: MailMessageRecord, server serverID: String, extraction: MessageExtraction?, headers: [MailHeader],
        files: String
    ) -> JSONValue {
        let codes = extraction?.codes ?? []
        let links = extraction?.links ?? []
        let attachments = record.attachments.map { part in
            let id = MailosaurAttachmentID(message: record.summary.id, position: part.position).text
            return JSONValue.object([
                ("id", .string(id)), ("contentType", .string(part.contentType)),
                ("fileName", part.filename.map(JSONValue.string) ?? .null),
                ("contentId", part.contentID.map(JSONValue.string) ?? .null), ("length", .int(part.size)),
                ("url", .string(files + id)),
            ])
        }
        let metadata: JSONValue = .object([
            ("headers", .array(headers.map { .object([("field", .string($0.name)), ("value", .string($0.value))]) })),
            ("ehlo", .null), ("mailFrom", .string(record.summary.envelopeFrom)),
            ("rcptTo", .array(record.summary.envelopeTo.map { address(MailAddress(email: $0)) })),
        ])
        return .object(
            heading(record, server: serverID) + [
                ("html", html(record.htmlBody, codes: codes, links: links)),
                ("text", text(record.textBody, codes: codes, links: links)),
                ("attachments", .array(attachments)), ("metadata", metadata),
            ])
    }

    /// What a summary and a message both begin with.
    private static func heading(_ record: MailMessageRecord, server serverID: String) -> [(String, JSONValue)] {
        [
            ("id", .string(record.summary.id)), ("type", .string("Email")), ("server", .string(serverID)),
            ("from", addresses(record.summary.from)), ("to", addresses(record.to)), ("cc", addresses(record.cc)),
            ("bcc", addresses(record.bcc)), ("received", .string(RFC3339.format(record.summary.receivedAt))),
            ("subject", .string(record.summary.subject ?? "")),
        ]
    }

    /// `MessageContent` of the HTML part: the links its markup holds (the URL as written, or with `&` as `&amp;`).
    static func html(_ body: String?, codes: [ExtractedCode], links: [ExtractedLink]) -> JSONValue {
        let found = body.map { html in
            links.filter { html.contains($0.url) || html.contains($0.url.replacingOccurrences(of: "&", with: "&amp;")) }
        }
        return content(
            body, codes: codes,
            links: (found ?? []).map { ($0.url, $0.text.isEmpty ? JSONValue.null : .string($0.text)) },
            images: true)
    }

    /// `MessageContent` of the text part: the links written in it, each with its URL as its text.
    static func text(_ body: String?, codes: [ExtractedCode], links: [ExtractedLink]) -> JSONValue {
        let found = body.map { text in links.filter { text.contains($0.url) } }
        return content(body, codes: codes, links: (found ?? []).map { ($0.url, .string($0.url)) }, images: false)
    }

    /// `{"links","codes",("images",)"body"}`: no link, code or image, and a null body, for a part the message lacks.
    private static func content(
        _ body: String?, codes: [ExtractedCode], links: [(href: String, text: JSONValue)], images: Bool
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("links", .array(links.map { .object([("href", .string($0.href)), ("text", $0.text)]) })),
            ("codes", .array(body == nil ? [] : codes.map { .object([("value", .string($0.value))]) })),
        ]
        if images { members.append(("images", .array([]))) }
        members.append(("body", body.map(JSONValue.string) ?? .null))
        return .object(members)
    }
}

/// The id of an attachment in Mailosaur's shape (`Attachment.id`, read back by `GET api/files/attachments/{id}`): the
/// message's id, `-`, and the attachment's position in the message from 0.
struct MailosaurAttachmentID: Sendable, Equatable {
    var message: String
    var position: Int

    var text: String { message + "-" + String(position) }

    init(message: String, position: Int) {
        self.message = message
        self.position = position
    }

    /// The id `text` spells; nil for anything else (no `-`, or a position that is no number below 10,000).
    init?(_ text: String) {
        guard let dash = text.lastIndex(of: "-"), dash != text.startIndex else { return nil }
        let digits = text[text.index(after: dash)...]
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let position = Int(digits)
        else { return nil }
        self.init(message: String(text[..<dash]), position: position)
    }
}
