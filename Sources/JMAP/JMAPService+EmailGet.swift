import JSON
import MIME
import MailStore
import ServerKit
import Time

extension JMAPService {
    /// RFC 8621's default property list (section 4.2); `bcc` reads a received message's Bcc field, or the sender's
    /// copy of a message written over JMAP.
    static let defaultEmailProperties = [
        "id", "blobId", "threadId", "mailboxIds", "keywords", "size", "receivedAt", "messageId", "inReplyTo",
        "references", "sender", "from", "to", "cc", "bcc", "replyTo", "subject", "sentAt", "hasAttachment", "preview",
        "bodyValues", "textBody", "htmlBody", "attachments",
    ]
    /// The properties `Email/get` knows besides `header:{name}[:as{form}][:all]`: the default list, `headers` and
    /// `bodyStructure`.
    static let emailProperties = Set(defaultEmailProperties + ["headers", "bodyStructure"])
    /// RFC 8621's default `bodyProperties` (section 4.2).
    static let defaultBodyProperties = [
        "partId", "blobId", "size", "name", "type", "charset", "disposition", "cid", "language", "location",
    ]
    /// The body part properties `Email/get` knows besides `header:…`: the defaults, `headers` and `subParts`.
    static let bodyPartProperties = Set(defaultBodyProperties + ["headers", "subParts"])
    /// The most stored bytes of messages `Email/get` reads at once (one message at least).
    static let rawBatchBytes: Int64 = 4 << 20
    /// The properties read from the message's bytes (its body structure and header fields as written).
    static let structureProperties: Set<String> = [
        "bodyStructure", "textBody", "htmlBody", "attachments", "bodyValues", "headers", "sender", "bcc",
    ]

    /// `Email/get` (RFC 8621 section 4.2) with `bodyProperties`, `fetchTextBodyValues`, `fetchHTMLBodyValues`,
    /// `fetchAllBodyValues` and `maxBodyValueBytes`. `ids` is required: all of an inbox is a query's job.
    func emailGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        let askedProperties = try arguments.strings("properties") ?? []
        let known = Self.emailProperties(for: call).union(askedProperties.filter { HeaderProperty($0) != nil })
        let wanted = try properties(arguments, known: known, fallback: Self.defaultEmailProperties)
        guard let ids = try getIDs(arguments, call) else {
            throw MethodError("requestTooLarge", "Email/get needs `ids` (from Email/query).")
        }
        let fetchAll = try arguments.bool("fetchAllBodyValues", default: false)
        let fetchText = try arguments.bool("fetchTextBodyValues", default: false) || fetchAll
        let fetchHTML = try arguments.bool("fetchHTMLBodyValues", default: false) || fetchAll
        let bodyProperties = try arguments.strings("bodyProperties") ?? Self.defaultBodyProperties
        if let unknown = bodyProperties.first(where: { !Self.bodyPartProperties.contains($0) && HeaderProperty($0) == nil }) {
            throw MethodError.invalidArguments("Unknown or unsupported body part property `\(unknown)`.")
        }
        var maxBytes = 0
        if arguments["maxBodyValueBytes"] != nil {
            // RFC 8621 section 4.2: an UnsignedInt, 0 (the default) for no truncation.
            guard let given = arguments["maxBodyValueBytes"]?.intValue, given >= 0, let int = Int(exactly: given) else {
                throw MethodError.invalidArguments("`maxBodyValueBytes` is an integer, 0 or more.")
            }
            maxBytes = int
        }
        let needsBytes = wanted.contains { Self.structureProperties.contains($0) || $0.hasPrefix("header:") }

        var list: [JSONValue] = []
        var notFound: [JSONValue] = []
        let found = try await store.messages(address: call.account.address, ids: ids)
        let extractions = try await extractions(of: ids, wanted: wanted, call)
        // The bytes are read a batch at a time (``rawBatchBytes`` of stored size), each batch's Emails charged before
        // the next is read: 500 large messages never sit in memory at once.
        var unread = needsBytes ? ids.filter { found[$0] != nil }[...] : []
        var raws: [String: [UInt8]] = [:]
        for id in ids {
            guard let message = found[id] else {
                notFound.append(.string(id))
                continue
            }
            if raws[id] == nil, unread.first == id {
                var batch: [String] = []
                var bytes: Int64 = 0
                while let next = unread.first, batch.isEmpty || bytes + (found[next]?.summary.size ?? 0) <= Self.rawBatchBytes {
                    bytes += found[next]?.summary.size ?? 0
                    batch.append(unread.removeFirst())
                }
                raws = try await store.raws(address: call.account.address, ids: batch)
            }
            var email = Self.email(message)
            if let raw = raws[id] {
                let structure = EmailBodyStructure(raw[...])
                let bodies = BodyParts(
                    messageID: id, structure: structure, properties: bodyProperties, fetchText: fetchText,
                    fetchHTML: fetchHTML, fetchAll: fetchAll, maxBytes: maxBytes)
                email.merge(bodies.properties) { $1 }
                let fields = structure.root.headers
                let bcc = HeaderProperty("header:Bcc:asAddresses").map { $0.value(in: fields) }?.first
                if let bcc, bcc != HeaderValue.none { email["bcc"] = Self.json(bcc) }
                email["sender"] = HeaderProperty("header:Sender:asAddresses").map { Self.json($0.value(in: fields)[0]) }
                for property in wanted where property.hasPrefix("header:") {
                    email[property] = HeaderProperty(property).map { Self.json($0, in: fields) }
                }
            }
            if let extractions { email.merge(Self.extractionProperties(extractions[id])) { $1 } }
            let item = JSONValue.object(wanted.map { ($0, email[$0] ?? .null) })
            try call.charge(item)  // the same big message asked for 500 times stops here, not in the encoder
            list.append(item)
        }
        return .object([
            ("accountId", .string(call.account.id)), ("state", stateBefore), ("list", .array(list)),
            ("notFound", .array(notFound)),
        ])
    }

    /// Every property of one stored message that its record holds (those read from its bytes are ``BodyParts``').
    static func email(_ message: MailMessageRecord) -> [String: JSONValue] {
        let summary = message.summary
        let id = summary.id
        let keywords: [(String, JSONValue)] = summary.allKeywords.sorted().map { ($0, .bool(true)) }
        func ids(_ list: [String]) -> JSONValue { list.isEmpty ? .null : .array(list.map(JSONValue.string)) }
        return [
            "id": .string(id), "blobId": .string("M" + id), "threadId": .string(summary.threadID),
            "mailboxIds": .object([(summary.folder.rawValue, .bool(true))]), "keywords": .object(keywords),
            "size": .int(summary.size), "receivedAt": .string(RFC3339.format(summary.receivedAt)),
            "messageId": message.messageID.map { .array([.string($0)]) } ?? .null,
            "inReplyTo": ids(message.inReplyTo), "references": ids(message.references), "sender": .null,
            "from": addresses(summary.from), "to": addresses(message.to), "cc": addresses(message.cc),
            "bcc": addresses(message.bcc), "replyTo": addresses(message.replyTo),
            "subject": summary.subject.map(JSONValue.string) ?? .null,
            "sentAt": message.sentAt.map { .string(RFC3339.format($0)) } ?? .null,
            // RFC 8621 4.1.4: a part of the attachments list a client would offer to download, not one shown inline
            // (delivery filed the parts by the RFC's algorithm, a part it shows in the body only as inline); the rule
            // of Email/query's hasAttachment filter (MailFilter.hasDownloadPart), so that the two always agree.
            "hasAttachment": .bool(message.attachments.contains { !$0.isShownInline }), "preview": .string(summary.preview),
        ]
    }

    /// An address list as JMAP writes it (EmailAddress[]), null when empty.
    static func addresses(_ list: [MailAddress]) -> JSONValue {
        list.isEmpty ? .null : .array(list.map(address))
    }

    private static func address(_ address: MailAddress) -> JSONValue {
        .object([("name", address.name.map(JSONValue.string) ?? .null), ("email", .string(address.email))])
    }

    /// A header property's value among `fields`: one value, or an array of them with `:all`.
    static func json(_ property: HeaderProperty, in fields: [MailHeader]) -> JSONValue {
        let values = property.value(in: fields).map(json)
        return property.all ? .array(values) : values[0]
    }

    /// One header value in JSON (RFC 8621 section 4.1.2).
    static func json(_ value: HeaderValue) -> JSONValue {
        switch value {
        case .none: return .null
        case .text(let text): return .string(text)
        case .strings(let list): return .array(list.map(JSONValue.string))
        case .addresses(let list): return .array(list.map(address))
        case .groups(let groups):
            return .array(groups.map { group in
                .object([
                    ("name", group.name.map(JSONValue.string) ?? .null),
                    ("addresses", .array(group.addresses.map(address))),
                ])
            })
        }
    }
}
