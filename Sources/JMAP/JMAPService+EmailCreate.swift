import Foundation
import JSON
import MIME
import MailStore
import Time

extension JMAPService {
    /// The Email properties a create may give besides `header:{name}[:as{form}][:all]` (RFC 8621 section 4.6).
    private static let creatable: Set<String> = [
        "mailboxIds", "keywords", "from", "sender", "to", "cc", "bcc", "replyTo", "subject", "sentAt", "messageId",
        "inReplyTo", "references", "textBody", "htmlBody", "attachments", "bodyValues", "bodyStructure",
    ]
    /// The header field each convenience property writes: a `header:` property for the same field repeats it.
    private static let fieldOfProperty: [String: String] = [
        "from": "from", "sender": "sender", "to": "to", "cc": "cc", "bcc": "bcc", "replyTo": "reply-to",
        "subject": "subject", "sentAt": "date", "messageId": "message-id", "inReplyTo": "in-reply-to",
        "references": "references",
    ]
    /// The properties of an EmailBodyPart a create may give besides `header:` ones.
    static let creatablePartProperties: Set<String> = [
        "partId", "blobId", "size", "name", "type", "charset", "disposition", "cid", "language", "location",
        "subParts",
    ]

    /// Writes one new message from its JMAP properties and stores it; returns `id`, `blobId`, `threadId`, `size`.
    func createEmail(_ object: [(String, JSONValue)], _ call: JMAPCall) async throws -> JSONValue {
        let properties = JMAPArguments(pairs: object)
        var headers: [(key: String, property: HeaderProperty, value: JSONValue)] = []
        for (key, value) in object {
            if key.hasPrefix("header:") {
                guard let property = HeaderProperty(key) else {
                    throw SetError.invalidProperties("`\(key)` names no header field in a form it may be written in.", [key])
                }
                guard !property.name.lowercased().hasPrefix("content-") else {
                    throw SetError.invalidProperties("A Content-* field belongs to a body part, not the Email.", [key])
                }
                headers.append((key, property, value))
                continue
            }
            guard !Self.creatable.contains(key) else { continue }
            let why =
                ["id", "blobId", "threadId", "size", "receivedAt", "hasAttachment", "preview"].contains(key)
                ? "`\(key)` is set by the server."
                : key == "headers"
                    ? "Header fields are set one by one, with header:{name} properties."
                    : "`\(key)` is not an Email property."
            throw SetError.invalidProperties(why, [key])
        }
        // RFC 8621 section 4.6: no two properties of the Email represent one field (`from` and `header:From`, or
        // `header:From` and `header:from:asAddresses`); the `header:` one that repeats is named.
        var fields = Set(Self.fieldOfProperty.filter { properties.present($0.key) != nil }.map(\.value))
        var headerFields = Set<String>()
        for (key, property, _) in headers {
            let field = property.name.lowercased()
            guard headerFields.insert(field).inserted, fields.insert(field).inserted else {
                throw SetError.invalidProperties("The field `\(property.name)` is given twice.", [key])
            }
        }
        let structural = ["textBody", "htmlBody", "attachments"].filter { properties.present($0) != nil }
        if properties.present("bodyStructure") != nil, !structural.isEmpty {
            throw SetError.invalidProperties(
                "With bodyStructure, textBody, htmlBody and attachments are not given.", structural)
        }
        let (folder, keywords) = try Self.placement(properties, call)
        let now = clock()
        let domain = call.account.address.split(separator: "@").last.map(String.init) ?? "localhost"
        var message = OutgoingMessage(messageID: UUID().uuidString.lowercased() + "@" + domain, date: now)
        message.from = try Self.addresses(properties, "from")
        message.sender = try Self.addresses(properties, "sender").first
        message.to = try Self.addresses(properties, "to")
        message.cc = try Self.addresses(properties, "cc")
        message.bcc = try Self.addresses(properties, "bcc")
        message.replyTo = try Self.addresses(properties, "replyTo")
        if let value = properties.present("subject") {
            guard let subject = value.stringValue else { throw SetError.invalidProperties("`subject` is a string.", ["subject"]) }
            message.subject = subject
        }
        if let value = properties.present("sentAt") {
            guard let text = value.stringValue, let seconds = RFC3339.parse(text) else {
                throw SetError.invalidProperties("`sentAt` is a date such as 2026-01-31T12:00:00Z.", ["sentAt"])
            }
            message.date = seconds
        }
        if let ids = try Self.messageIDs(properties, "messageId") {
            guard ids.count == 1 else { throw SetError.invalidProperties("`messageId` holds one id.", ["messageId"]) }
            message.messageID = ids[0]
        }
        message.inReplyTo = try Self.messageIDs(properties, "inReplyTo") ?? []
        message.references = try Self.messageIDs(properties, "references") ?? []
        for (key, property, value) in headers {
            if property.name.lowercased() == "bcc" {
                // Kept beside the message as `bcc` is, never written into it: every recipient would read it.
                message.bcc += try Self.headerValues(value, property, key).flatMap { value -> [MailAddress] in
                    guard let addresses = Self.addresses(in: value) else {
                        throw SetError.invalidProperties("`\(key)` holds no address list.", [key])
                    }
                    return addresses
                }
                continue
            }
            message.headerLines += try Self.headerLines(value, property, key)
        }
        let bodyValues = try Self.bodyValues(properties)
        var reader = BodyPartReader(bodyValues: bodyValues, messageFields: fields, service: self, call: call)
        if let structure = properties.present("bodyStructure") {
            message.body = try await reader.part(structure, path: "bodyStructure", defaultType: nil, isRoot: true)
        } else {
            message.body = try await reader.structure(properties)
        }
        return try await store(message, folder: folder, keywords: keywords, now: now, call)
    }

    /// Writes and keeps `message`.
    private func store(
        _ message: OutgoingMessage, folder: MailFolder, keywords: Set<String>, now: Int64, _ call: JMAPCall
    ) async throws -> JSONValue {
        let raw: [UInt8]
        do {
            raw = try MIMEComposer.compose(message)
        } catch {
            throw SetError.invalidProperties("The message could not be written: \(error).", [])
        }
        guard raw.count <= configuration.maxSizeUpload else {
            throw SetError(.tooLarge, description: "The message would pass \(configuration.maxSizeUpload) bytes.")
        }
        let parsed: ParsedMessage
        do {
            parsed = try MIMEParser.parse(raw, limits: MIMELimits(maximumMessageBytes: configuration.maxSizeUpload))
        } catch {
            throw SetError.invalidProperties("The message could not be written: \(error).", [])
        }
        var record = NewMailMessage(parsed, envelopeFrom: call.account.address, raw: raw)
        record.bcc = message.bcc
        let id: String
        do {
            id = try await store.save(
                record, address: call.account.address, quota: call.account.quota, folder: folder, keywords: keywords,
                now: now)
        } catch MailStoreError.quotaExceeded {
            throw SetError(.overQuota, description: "The account's mail would pass its quota.")
        } catch MailStoreError.keywordLimit(let limit) {
            throw keywordRefusal(limit)
        } catch MailFolderError.noSuchFolder {
            throw SetError.invalidProperties("No such mailbox.", ["mailboxIds"])
        }
        let thread = try await store.message(address: call.account.address, id: id)?.summary.threadID ?? id
        return .object([
            ("id", .string(id)), ("blobId", .string("M" + id)), ("threadId", .string(thread)),
            ("size", .int(Int64(raw.count))),
        ])
    }

    /// `bodyValues` by part id: each an object with a string `value`, and `isEncodingProblem` and `isTruncated`
    /// false or absent (RFC 8621 section 4.6).
    private static func bodyValues(_ properties: JMAPArguments) throws(SetError) -> [String: String] {
        guard let value = properties.present("bodyValues") else { return [:] }
        guard let pairs = value.objectValue else {
            throw .invalidProperties("`bodyValues` maps part ids to body values.", ["bodyValues"])
        }
        var values: [String: String] = [:]
        for (id, body) in pairs {
            guard let text = body["value"]?.stringValue else {
                throw .invalidProperties("A body value has a string `value`.", ["bodyValues/\(id)"])
            }
            let flags = ["isEncodingProblem", "isTruncated"].filter { body[$0] == .bool(true) }
            guard flags.isEmpty else {
                throw .invalidProperties(
                    "A body value to write is neither truncated nor an encoding problem.",
                    flags.map { "bodyValues/\(id)/\($0)" })
            }
            values[id] = text
        }
        return values
    }

    /// The header lines a `header:` property writes: one, or one for each value with `:all`; none for null.
    static func headerLines(_ value: JSONValue, _ property: HeaderProperty, _ key: String) throws(SetError)
        -> [String]
    {
        var lines: [String] = []
        for item in try headerValues(value, property, key) {
            do {
                lines.append(try property.form.line(property.name, item))
            } catch {
                throw .invalidProperties("`\(key)` cannot be written: \(error.reason).", [key])
            }
        }
        return lines
    }

    /// The typed values of a `header:` property's JSON (RFC 8621 section 4.1.2's forms).
    private static func headerValues(_ value: JSONValue, _ property: HeaderProperty, _ key: String) throws(SetError)
        -> [HeaderValue]
    {
        if value == .null { return [] }
        let items: [JSONValue]
        if property.all {
            guard let list = value.arrayValue else { throw .invalidProperties("`\(key)` is an array of values.", [key]) }
            items = list
        } else {
            items = [value]
        }
        var values: [HeaderValue] = []
        for item in items {
            guard let typed = headerValue(item, property.form) else {
                throw .invalidProperties("`\(key)` is not a value of the \(property.form.rawValue) form.", [key])
            }
            values.append(typed)
        }
        return values
    }

    private static func headerValue(_ value: JSONValue, _ form: HeaderForm) -> HeaderValue? {
        func mailbox(_ item: JSONValue) -> MailAddress? {
            guard let email = item["email"]?.stringValue else { return nil }
            return MailAddress(name: item["name"]?.stringValue, email: email)
        }
        switch form {
        case .raw, .text, .date:
            return value.stringValue.map(HeaderValue.text)
        case .messageIDs, .urls:
            guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else { return nil }
            return .strings(list.compactMap(\.stringValue))
        case .addresses:
            guard let list = value.arrayValue else { return nil }
            let addresses = list.compactMap(mailbox)
            return addresses.count == list.count ? .addresses(addresses) : nil
        case .groupedAddresses:
            guard let list = value.arrayValue else { return nil }
            var groups: [AddressGroup] = []
            for item in list {
                guard let members = item["addresses"]?.arrayValue else { return nil }
                let addresses = members.compactMap(mailbox)
                guard addresses.count == members.count else { return nil }
                groups.append(AddressGroup(name: item["name"]?.stringValue, addresses: addresses))
            }
            return .groups(groups)
        }
    }

    /// The addresses a Bcc value names, whatever its form; nil when it names none that can be read.
    private static func addresses(in value: HeaderValue) -> [MailAddress]? {
        let addresses: [MailAddress]
        switch value {
        case .addresses(let list): addresses = list
        case .groups(let groups): addresses = groups.flatMap(\.addresses)
        case .text(let raw): addresses = (try? AddressListParser.addressList(raw))?.flatMap(\.mailboxes) ?? []
        default: addresses = []
        }
        return addresses.isEmpty || !addresses.allSatisfy({ isAddress($0.email) }) ? nil : addresses
    }
}

/// Reads the body parts of an Email to create (RFC 8621 section 4.6) into an ``OutgoingPart`` tree: `bodyStructure`
/// as given, or `textBody`, `htmlBody` and `attachments` arranged as the RFC says. Each refusal names the property
/// it is about by its path (`bodyStructure/subParts/0/size`).
struct BodyPartReader {
    let bodyValues: [String: String]
    /// The header fields the Email itself sets (its `header:` properties and its convenience ones, `from` for `From`):
    /// the root part, whose header lines are the message's own, repeats one when it sets it too (RFC 8621 section 4.6).
    let messageFields: Set<String>
    let service: JMAPService
    let call: JMAPCall

    /// The structure `textBody`, `htmlBody` and `attachments` describe: the text or the HTML, both in a
    /// `multipart/alternative`, inline attachments with a content id in a `multipart/related` with them, the rest in a
    /// `multipart/mixed`; an empty text without any.
    mutating func structure(_ properties: JMAPArguments) async throws -> OutgoingPart {
        // A lone text or HTML part without attachments is the message's root: its header lines are the message's.
        let alone =
            (properties.present("textBody") == nil) != (properties.present("htmlBody") == nil)
            && properties.present("attachments")?.arrayValue?.isEmpty ?? true
        let text = try await single(properties, "textBody", type: "text/plain", isRoot: alone)
        let html = try await single(properties, "htmlBody", type: "text/html", isRoot: alone)
        var attachments: [OutgoingPart] = []
        if let value = properties.present("attachments") {
            guard let list = value.arrayValue else {
                throw SetError.invalidProperties("`attachments` is an array of body parts.", ["attachments"])
            }
            var missing: [JSONValue] = []
            for (index, item) in list.enumerated() {
                do {
                    var part = try await part(item, path: "attachments/\(index)", defaultType: nil)
                    if part.disposition == nil { part.disposition = "attachment" }
                    attachments.append(part)
                } catch let error as SetError where error.kind == .blobNotFound {
                    missing += error.notFound ?? []
                }
            }
            if !missing.isEmpty {
                var error = SetError(.blobNotFound, description: "No such blob in this account.")
                error.notFound = missing
                throw error
            }
        }
        var body: OutgoingPart? =
            switch (text, html) {
            case (let text?, let html?): OutgoingPart(type: "multipart/alternative", content: .parts([text, html]))
            case (let only?, nil), (nil, let only?): only
            case (nil, nil): nil
            }
        let inline = attachments.filter { $0.disposition == "inline" && $0.cid != nil }
        if html != nil, !inline.isEmpty, let shown = body {
            body = OutgoingPart(type: "multipart/related", content: .parts([shown] + inline))
            attachments.removeAll { $0.disposition == "inline" && $0.cid != nil }
        }
        guard !attachments.isEmpty else { return body ?? OutgoingPart(type: "text/plain", content: .text("")) }
        return OutgoingPart(type: "multipart/mixed", content: .parts((body.map { [$0] } ?? []) + attachments))
    }

    /// The one part of `textBody` or `htmlBody`.
    private mutating func single(_ properties: JMAPArguments, _ name: String, type: String, isRoot: Bool) async throws
        -> OutgoingPart?
    {
        guard let value = properties.present(name) else { return nil }
        guard let parts = value.arrayValue, parts.count == 1, let first = parts.first else {
            throw SetError.invalidProperties("`\(name)` holds exactly one body part.", [name])
        }
        return try await part(first, path: "\(name)/0", defaultType: type, isRoot: isRoot)
    }

    /// One EmailBodyPart to create, at `path`; `isRoot` when its header lines are the message's own.
    mutating func part(_ value: JSONValue, path: String, defaultType: String?, isRoot: Bool = false) async throws
        -> OutgoingPart
    {
        guard let object = value.objectValue else {
            throw SetError.invalidProperties("A body part is an object.", [path])
        }
        let given = JMAPArguments(pairs: object)
        var headerLines: [String] = []
        var fields = Set<String>()
        for (key, value) in object {
            if key.hasPrefix("header:") {
                guard let property = HeaderProperty(key) else {
                    throw SetError.invalidProperties("`\(key)` names no header field in a form it may be written in.", [path + "/" + key])
                }
                let field = property.name.lowercased()
                guard field != "content-transfer-encoding" else {
                    throw SetError.invalidProperties("The server picks each part's transfer encoding.", [path + "/" + key])
                }
                guard !(isRoot && messageFields.contains(field)), fields.insert(field).inserted else {
                    throw SetError.invalidProperties("The field `\(property.name)` is given twice.", [path + "/" + key])
                }
                headerLines += try JMAPService.headerLines(value, property, path + "/" + key)
                continue
            }
            guard key != "headers" else {
                throw SetError.invalidProperties(
                    "A body part's header fields are set one by one, with header:{name} properties.", [path + "/headers"])
            }
            guard JMAPService.creatablePartProperties.contains(key) else {
                throw SetError.invalidProperties("`\(key)` is not a body part property.", [path + "/" + key])
            }
        }
        func string(_ key: String) throws(SetError) -> String? {
            guard let value = given.present(key) else { return nil }
            guard let text = value.stringValue else { throw .invalidProperties("`\(key)` is a string.", [path + "/" + key]) }
            return text
        }
        let partID = try string("partId")
        let blobID = try string("blobId")
        if partID != nil, blobID != nil {
            throw SetError.invalidProperties("A body part has a partId or a blobId, not both.", [path + "/partId", path + "/blobId"])
        }
        var type = try string("type")?.lowercased()
        var part = OutgoingPart(
            type: "", charset: try string("charset"), name: try string("name"),
            disposition: try string("disposition")?.lowercased(), cid: try string("cid"),
            location: try string("location"), headerLines: headerLines, content: .text(""))
        if let language = given.present("language") {
            guard let list = language.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw SetError.invalidProperties("`language` is an array of language tags.", [path + "/language"])
            }
            part.language = list.compactMap(\.stringValue)
        }
        if let subParts = given.present("subParts") {
            guard partID == nil, blobID == nil, let list = subParts.arrayValue else {
                throw SetError.invalidProperties("A multipart has an array of subParts and no content of its own.", [path + "/subParts"])
            }
            let multipart = type ?? "multipart/mixed"
            guard multipart.hasPrefix("multipart/") else {
                throw SetError.invalidProperties("Only a multipart type has subParts.", [path + "/type"])
            }
            var children: [OutgoingPart] = []
            for (index, child) in list.enumerated() {
                children.append(try await self.part(child, path: path + "/subParts/\(index)", defaultType: nil))
            }
            part.type = multipart
            part.content = .parts(children)
            return part
        }
        if let partID {
            for key in ["charset", "size"] where given.present(key) != nil {
                throw SetError.invalidProperties("A part given by partId has no `\(key)`: the server writes it.", [path + "/" + key])
            }
            guard let text = bodyValues[partID] else {
                throw SetError.invalidProperties("`bodyValues` has no value for part \(partID).", ["bodyValues"])
            }
            type = type ?? defaultType ?? "text/plain"
            part.content = type!.hasPrefix("text/") ? .text(text) : .bytes(Array(text.utf8))
        } else if let blobID {
            guard let blob = try await service.store.blob(address: call.account.address, id: call.id(blobID) ?? blobID)
            else {
                // RFC 8621 section 4.6: a blobNotFound SetError lists the blob ids it could not find.
                var error = SetError(.blobNotFound, description: "No blob \(blobID) in this account.")
                error.notFound = [.string(blobID)]
                throw error
            }
            if let size = given.present("size"), size.intValue != Int64(blob.data.count) {
                throw SetError.invalidProperties("`size` is not the size of blob \(blobID).", [path + "/size"])
            }
            type = type ?? defaultType ?? blob.type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            part.content = .bytes(blob.data)
        } else {
            throw SetError.invalidProperties("A body part needs `partId` (with bodyValues), `blobId` or `subParts`.", [path])
        }
        guard let type, type.split(separator: "/").count == 2, !type.hasPrefix("multipart/") else {
            throw SetError.invalidProperties("A leaf's `type` is type/subtype and not multipart.", [path + "/type"])
        }
        part.type = type
        return part
    }
}
