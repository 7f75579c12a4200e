import JSON
import MIME
import MailStore
import ServerKit
import Time

extension JMAPService {
    /// RFC 8621's default property list, which is every property `Email/get` knows (section 4.1): `sender` is not
    /// kept and reads as null; `bcc` is kept for the sender's copy of a message written over JMAP.
    static let defaultEmailProperties = [
        "id", "blobId", "threadId", "mailboxIds", "keywords", "size", "receivedAt", "messageId", "inReplyTo",
        "references", "sender", "from", "to", "cc", "bcc", "replyTo", "subject", "sentAt", "hasAttachment", "preview",
        "bodyValues", "textBody", "htmlBody", "attachments",
    ]
    /// The properties `Email/get` knows: the default list.
    static let emailProperties = Set(defaultEmailProperties)
    /// RFC 8621's default `bodyProperties`, which is every property of a body part `Email/get` knows (section 4.2).
    static let defaultBodyProperties = [
        "partId", "blobId", "size", "name", "type", "charset", "disposition", "cid", "language", "location",
    ]

    /// `Email/get` (RFC 8621 section 4.2) with `bodyProperties`, `fetchTextBodyValues`, `fetchHTMLBodyValues`,
    /// `fetchAllBodyValues` and `maxBodyValueBytes`. `ids` is required: all of an inbox is a query's job.
    func emailGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        let wanted = try properties(
            arguments, known: Self.emailProperties(for: call), fallback: Self.defaultEmailProperties)
        guard let ids = try getIDs(arguments, call) else {
            throw MethodError("requestTooLarge", "Email/get needs `ids` (from Email/query).")
        }
        let fetchAll = try arguments.bool("fetchAllBodyValues", default: false)
        let fetchText = try arguments.bool("fetchTextBodyValues", default: false) || fetchAll
        let fetchHTML = try arguments.bool("fetchHTMLBodyValues", default: false) || fetchAll
        let bodyProperties = try arguments.strings("bodyProperties") ?? Self.defaultBodyProperties
        if let unknown = bodyProperties.first(where: { !Self.defaultBodyProperties.contains($0) }) {
            throw MethodError.invalidArguments("Unknown or unsupported body part property `\(unknown)`.")
        }
        let maxBytes = try arguments.int("maxBodyValueBytes") ?? 0
        guard maxBytes >= 0 else { throw MethodError.invalidArguments("`maxBodyValueBytes` must not be negative.") }

        var list: [JSONValue] = []
        var notFound: [JSONValue] = []
        let found = try await store.messages(address: call.account.address, ids: ids)
        let extractions = try await extractions(of: ids, wanted: wanted, call)
        for id in ids {
            guard let message = found[id] else {
                notFound.append(.string(id))
                continue
            }
            var email = Self.email(message, fetchText: fetchText, fetchHTML: fetchHTML, maxBytes: maxBytes)
            if let extractions { email.merge(Self.extractionProperties(extractions[id])) { $1 } }
            for key in ["textBody", "htmlBody", "attachments"] {
                email[key] = email[key].map { Self.bodyParts($0, keeping: bodyProperties) }
            }
            let item = JSONValue.object(wanted.map { ($0, email[$0] ?? .null) })
            try call.charge(item)  // the same big message asked for 500 times stops here, not in the encoder
            list.append(item)
        }
        return .object([
            ("accountId", .string(call.account.id)), ("state", stateBefore), ("list", .array(list)),
            ("notFound", .array(notFound)),
        ])
    }

    /// Every property of one stored message.
    static func email(_ message: MailMessageRecord, fetchText: Bool, fetchHTML: Bool, maxBytes: Int)
        -> [String: JSONValue]
    {
        let summary = message.summary
        let id = summary.id
        let textPart = message.textBody.map {
            part(partID: "text", blobID: "T" + id, type: "text/plain", size: $0.utf8.count)
        }
        let htmlPart = message.htmlBody.map {
            part(partID: "html", blobID: "H" + id, type: "text/html", size: $0.utf8.count)
        }
        let attachments: [JSONValue] = message.attachments.map { attachment in
            .object([
                ("partId", .string("a\(attachment.position)")), ("blobId", .string("A\(id)_\(attachment.position)")),
                ("size", .int(attachment.size)), ("name", attachment.filename.map(JSONValue.string) ?? .null),
                ("type", .string(attachment.contentType)), ("charset", .null),
                ("disposition", attachment.disposition.map(JSONValue.string) ?? .null),
                ("cid", attachment.contentID.map(JSONValue.string) ?? .null), ("language", .null), ("location", .null),
            ])
        }
        var bodyValues: [(String, JSONValue)] = []
        func value(_ partID: String, _ text: String) {
            var shown = text
            var truncated = false
            if maxBytes > 0, text.utf8.count > maxBytes {
                shown = String(decoding: text.utf8.prefix(maxBytes), as: UTF8.self)
                if shown.hasSuffix("\u{FFFD}") { shown.removeLast() }
                truncated = true
            }
            bodyValues.append((partID, .object([
                ("value", .string(shown)), ("isEncodingProblem", false), ("isTruncated", .bool(truncated)),
            ])))
        }
        let textBody = [textPart ?? htmlPart].compactMap { $0 }
        let htmlBody = [htmlPart ?? textPart].compactMap { $0 }
        if fetchText, let text = message.textBody ?? message.htmlBody {
            value(message.textBody != nil ? "text" : "html", text)
        }
        if fetchHTML, let html = message.htmlBody ?? message.textBody {
            let partID = message.htmlBody != nil ? "html" : "text"
            if !bodyValues.contains(where: { $0.0 == partID }) { value(partID, html) }
        }
        let keywords: [(String, JSONValue)] = summary.allKeywords.sorted().map { ($0, .bool(true)) }
        func addresses(_ list: [MailAddress]) -> JSONValue {
            list.isEmpty
                ? .null
                : .array(list.map { .object([("name", $0.name.map(JSONValue.string) ?? .null), ("email", .string($0.email))]) })
        }
        func ids(_ list: [String]) -> JSONValue { list.isEmpty ? .null : .array(list.map(JSONValue.string)) }
        return [
            "id": .string(id), "blobId": .string("M" + id), "threadId": .string(summary.threadID),
            "mailboxIds": .object([(summary.folder.rawValue, .bool(true))]), "keywords": .object(keywords),
            "size": .int(summary.size), "receivedAt": .string(RFC3339.format(summary.receivedAt)),
            "messageId": message.messageID.map { .array([.string($0)]) } ?? .null,
            "inReplyTo": ids(message.inReplyTo), "references": ids(message.references), "sender": .null,
            "from": addresses(summary.from), "to": addresses(message.to), "cc": addresses(message.cc), "bcc": addresses(message.bcc),
            "replyTo": addresses(message.replyTo), "subject": summary.subject.map(JSONValue.string) ?? .null,
            "sentAt": message.sentAt.map { .string(RFC3339.format($0)) } ?? .null,
            "hasAttachment": .bool(!message.attachments.isEmpty), "preview": .string(summary.preview),
            "bodyValues": .object(bodyValues), "textBody": .array(textBody), "htmlBody": .array(htmlBody),
            "attachments": .array(attachments),
        ]
    }

    /// `parts` (an array of body parts) with only `properties` in each, in that order (`bodyProperties`).
    static func bodyParts(_ parts: JSONValue, keeping properties: [String]) -> JSONValue {
        .array((parts.arrayValue ?? []).map { part in .object(properties.map { ($0, part[$0] ?? .null) }) })
    }

    private static func part(partID: String, blobID: String, type: String, size: Int) -> JSONValue {
        .object([
            ("partId", .string(partID)), ("blobId", .string(blobID)), ("size", .int(Int64(size))), ("name", .null),
            ("type", .string(type)), ("charset", "utf-8"), ("disposition", .null), ("cid", .null), ("language", .null),
            ("location", .null),
        ])
    }
}
