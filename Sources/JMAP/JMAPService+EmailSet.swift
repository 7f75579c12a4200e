import Foundation
import JSON
import MIME
import MailStore
import ServerKit
import Time

extension JMAPService {
    /// `Email/set` (RFC 8621 section 4.6): create messages (drafts or any other) from JMAP properties, update
    /// keywords and mailboxes, destroy.
    func emailSet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let oldState = try await stateBeforeSet(arguments, call)
        let create = try arguments.object("create") ?? []
        let update = try arguments.object("update") ?? []
        let destroy = try arguments.strings("destroy") ?? []
        try checkSetSize(create.count + update.count + destroy.count)
        var response = SetResponse()
        for (creationID, value) in create {
            guard let object = value.objectValue else {
                response.notCreated.append((creationID, SetError.invalidProperties("An Email must be an object.", []).json))
                continue
            }
            do {
                let email = try await createEmail(object, call)
                call.createdIDs[creationID] = email["id"]?.stringValue
                response.created.append((creationID, email))
            } catch let error as SetError {
                response.notCreated.append((creationID, error.json))
            }
        }
        for (key, value) in update {
            try await applyEmailUpdate(key: key, id: call.id(key) ?? key, value, into: &response, call)
        }
        for key in destroy {
            let id = call.id(key) ?? key
            if try await store.delete(address: call.account.address, id: id) {
                response.destroyed.append(.string(id))
            } else {
                response.notDestroyed.append((key, SetError.notFound.json))
            }
        }
        let states = try await statesAfterSet(before: oldState, touched: response.touchedIDs, call)
        return response.json(accountID: call.account.id, states: states)
    }

    /// Applies an Email patch (`keywords`, `keywords/…`, `mailboxIds`, `mailboxIds/…`); nil when it was applied.
    func updateEmail(_ id: String, _ patch: [(String, JSONValue)], _ call: JMAPCall) async throws -> SetError? {
        guard let message = try await store.message(address: call.account.address, id: id) else { return .notFound }
        var keywords = message.summary.allKeywords
        var mailboxes: Set<String> = [message.summary.folder.rawValue]
        for (path, value) in patch {
            if path == "keywords" {
                guard let object = value.objectValue, object.allSatisfy({ $0.1 == .bool(true) }) else {
                    return .invalidProperties("`keywords` maps keywords to true.", ["keywords"])
                }
                keywords = Set(object.map { Self.keyword($0.0) })
            } else if path.hasPrefix("keywords/") {
                let keyword = Self.keyword(String(path.dropFirst("keywords/".count)))
                switch value {
                case .bool(true): keywords.insert(keyword)
                case .null, .bool(false): keywords.remove(keyword)
                default: return .invalidProperties("A keyword is set with true and removed with null.", [path])
                }
            } else if path == "mailboxIds" {
                guard let object = value.objectValue, object.allSatisfy({ $0.1 == .bool(true) }) else {
                    return .invalidProperties("`mailboxIds` maps mailbox ids to true.", ["mailboxIds"])
                }
                mailboxes = Set(object.map { call.id($0.0) ?? $0.0 })
            } else if path.hasPrefix("mailboxIds/") {
                let mailbox = String(path.dropFirst("mailboxIds/".count))
                switch value {
                case .bool(true): mailboxes.insert(call.id(mailbox) ?? mailbox)
                case .null, .bool(false): mailboxes.remove(call.id(mailbox) ?? mailbox)
                default: return .invalidProperties("A mailbox is added with true and removed with null.", [path])
                }
            } else {
                return .invalidProperties("Only keywords and mailboxIds of an Email can change.", [path])
            }
        }
        guard let folder = Self.folder(mailboxes) else {
            return .invalidProperties("A message is in exactly one mailbox here.", ["mailboxIds"])
        }
        do {
            guard try await store.update(address: call.account.address, id: id, keywords: keywords, folder: folder)
            else { return .notFound }
        } catch MailStoreError.keywordLimit(let limit) {
            return keywordRefusal(limit)
        } catch MailFolderError.noSuchFolder {
            return .invalidProperties("No such mailbox.", ["mailboxIds"])
        }
        return nil
    }

    /// `name` as the store keeps a keyword: lowercase. Keywords are case-insensitive, as IMAP's are, and RFC 8621
    /// section 4.1.1 has servers return them in lowercase because JSON is not; IMAP's `STORE` and `APPEND` lowercase
    /// theirs too (`IMAPFlag.keyword`), so each door finds what the other set.
    static func keyword(_ name: String) -> String { name.lowercased() }

    /// The mailbox (`mailboxIds`, exactly one) and the keywords (`keywords`, none when absent) a new Email is
    /// stored with, by `Email/set` create and `Email/import` alike.
    static func placement(_ properties: JMAPArguments, _ call: JMAPCall) throws(SetError) -> (MailFolder, Set<String>) {
        guard let mailboxes = properties["mailboxIds"]?.objectValue, mailboxes.allSatisfy({ $0.1 == .bool(true) }),
            let folder = Self.folder(Set(mailboxes.map { call.id($0.0) ?? $0.0 }))
        else {
            throw .invalidProperties("`mailboxIds` must name exactly one mailbox.", ["mailboxIds"])
        }
        guard let value = properties.present("keywords") else { return (folder, []) }
        guard let pairs = value.objectValue, pairs.allSatisfy({ $0.1 == .bool(true) }) else {
            throw .invalidProperties("`keywords` maps keywords to true.", ["keywords"])
        }
        return (folder, Set(pairs.map { Self.keyword($0.0) }))
    }

    /// The SetError of a keyword cap: a keyword too long is an invalid `keywords`; too many is `tooManyKeywords`.
    func keywordRefusal(_ limit: MailKeywordLimits.Limit) -> SetError {
        let limits = store.keywordLimits
        switch limit {
        case .keywordLength:
            return .invalidProperties("A keyword may be at most \(limits.maxKeywordBytes) bytes.", ["keywords"])
        case .perMessage:
            return SetError(
                .tooManyKeywords, description: "An Email may have at most \(limits.maxPerMessage) keywords.")
        case .perAddress:
            return SetError(
                .tooManyKeywords, description: "The account may use at most \(limits.maxPerAddress) distinct keywords.")
        }
    }

    /// The one mailbox `mailboxes` names, or nil when it names none, several or one this account lacks.
    static func folder(_ mailboxes: Set<String>) -> MailFolder? {
        guard mailboxes.count == 1, let only = mailboxes.first else { return nil }
        return MailFolder(rawValue: only)
    }

    /// Writes one new message from its JMAP properties and stores it; returns `id`, `blobId`, `threadId`, `size`.
    private func createEmail(_ object: [(String, JSONValue)], _ call: JMAPCall) async throws -> JSONValue {
        let properties = JMAPArguments(pairs: object)
        let serverSet: Set<String> = [
            "id", "blobId", "threadId", "size", "receivedAt", "hasAttachment", "preview",
        ]
        let allowed: Set<String> = [
            "mailboxIds", "keywords", "from", "sender", "to", "cc", "bcc", "replyTo", "subject", "sentAt", "messageId",
            "inReplyTo", "references", "textBody", "htmlBody", "attachments", "bodyValues",
        ]
        for (key, _) in object where !allowed.contains(key) {
            let why = serverSet.contains(key)
                ? "`\(key)` is set by the server."
                : key == "bodyStructure" || key == "headers" || key.hasPrefix("header:")
                    ? "`\(key)` is not supported here: use textBody, htmlBody and attachments."
                    : "`\(key)` is not an Email property."
            throw SetError.invalidProperties(why, [key])
        }
        let (folder, keywords) = try Self.placement(properties, call)
        let now = clock()
        let domain = call.account.address.split(separator: "@").last.map(String.init) ?? "localhost"
        var message = OutgoingMessage(
            messageID: UUID().uuidString.lowercased() + "@" + domain, date: now)
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
        let bodyValues = properties.present("bodyValues")
        message.textBody = try await bodyText(properties, "textBody", bodyValues, call)
        message.htmlBody = try await bodyText(properties, "htmlBody", bodyValues, call)
        message.attachments = try await attachments(properties, call)

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

    private static func addresses(_ properties: JMAPArguments, _ name: String) throws(SetError) -> [MailAddress] {
        guard let value = properties.present(name) else { return [] }
        guard let list = value.arrayValue else { throw .invalidProperties("`\(name)` is an array of addresses.", [name]) }
        var out: [MailAddress] = []
        for item in list {
            guard let email = item["email"]?.stringValue, Self.isAddress(email) else {
                throw .invalidProperties("Each address of `\(name)` needs an `email` such as a@example.com.", [name])
            }
            out.append(MailAddress(name: item["name"]?.stringValue, email: email))
        }
        return out
    }

    /// `local@domain` as envelopes and headers carry it unquoted (``AddressListParser/isPlainAddress(_:)``, the one
    /// rule the composer and the sender check share): no space, angle bracket or line break to smuggle into a header
    /// or an envelope.
    static func isAddress(_ text: String) -> Bool {
        AddressListParser.isPlainAddress(text)
    }

    private static func messageIDs(_ properties: JMAPArguments, _ name: String) throws(SetError) -> [String]? {
        guard let value = properties.present(name) else { return nil }
        guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count,
            list.allSatisfy({ !$0.isEmpty && !$0.unicodeScalars.contains { $0.value <= 0x20 || $0 == "<" || $0 == ">" } })
        else { throw .invalidProperties("`\(name)` is an array of message ids without angle brackets.", [name]) }
        return list
    }

    /// The text of `textBody` or `htmlBody`: one part, from `bodyValues` by `partId` or from a blob.
    private func bodyText(_ properties: JMAPArguments, _ name: String, _ bodyValues: JSONValue?, _ call: JMAPCall)
        async throws -> String?
    {
        guard let value = properties.present(name) else { return nil }
        guard let parts = value.arrayValue, parts.count == 1, let part = parts.first?.objectValue else {
            throw SetError.invalidProperties("`\(name)` holds exactly one body part.", [name])
        }
        let body = JMAPArguments(pairs: part)
        if let partID = body["partId"]?.stringValue {
            guard let text = bodyValues?[partID]?["value"]?.stringValue else {
                throw SetError.invalidProperties("`bodyValues` has no value for part \(partID).", ["bodyValues"])
            }
            return text
        }
        if let blobID = body["blobId"]?.stringValue {
            guard let blob = try await store.blob(address: call.account.address, id: call.id(blobID) ?? blobID) else {
                // RFC 8621 section 4.6: a blobNotFound SetError lists the blob ids it could not find.
                var error = SetError(.blobNotFound, description: "No blob \(blobID) in this account.")
                error.notFound = [.string(blobID)]
                throw error
            }
            return String(decoding: blob.data, as: UTF8.self)
        }
        throw SetError.invalidProperties("A body part needs `partId` (with bodyValues) or `blobId`.", [name])
    }

    private func attachments(_ properties: JMAPArguments, _ call: JMAPCall) async throws -> [MailAttachment] {
        guard let value = properties.present("attachments") else { return [] }
        guard let list = value.arrayValue else {
            throw SetError.invalidProperties("`attachments` is an array of body parts.", ["attachments"])
        }
        var out: [MailAttachment] = []
        var missing: [JSONValue] = []
        for item in list {
            guard let given = item["blobId"]?.stringValue else {
                throw SetError.invalidProperties("Each attachment needs a `blobId`.", ["attachments"])
            }
            guard let id = call.id(given), let blob = try await store.blob(address: call.account.address, id: id) else {
                missing.append(.string(given))
                continue
            }
            let type = item["type"]?.stringValue?.lowercased() ?? blob.type
            guard type.split(separator: "/").count == 2, !type.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ";" })
            else { throw SetError.invalidProperties("An attachment's `type` is type/subtype.", ["attachments"]) }
            let cid = item["cid"]?.stringValue
            if let cid, cid.isEmpty || cid.unicodeScalars.contains(where: { $0.value <= 0x20 || $0 == "<" || $0 == ">" }) {
                throw SetError.invalidProperties("An attachment's `cid` is an id without angle brackets.", ["attachments"])
            }
            out.append(MailAttachment(
                filename: item["name"]?.stringValue, contentType: type, contentID: cid,
                disposition: item["disposition"]?.stringValue == "inline" ? "inline" : "attachment", data: blob.data))
        }
        if !missing.isEmpty {
            var error = SetError(.blobNotFound, description: "No such blob in this account.")
            error.notFound = missing
            throw error
        }
        return out
    }
}
