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
    /// stored with, by `Email/set` create and `Email/import` alike; a refusal names both when both are at fault.
    static func placement(_ properties: JMAPArguments, _ call: JMAPCall) throws(SetError) -> (MailFolder, Set<String>) {
        var faults: [(String, String)] = []
        var folder: MailFolder?
        if let mailboxes = properties["mailboxIds"]?.objectValue, mailboxes.allSatisfy({ $0.1 == .bool(true) }) {
            folder = Self.folder(Set(mailboxes.map { call.id($0.0) ?? $0.0 }))
        }
        if folder == nil { faults.append(("mailboxIds", "`mailboxIds` must name exactly one mailbox.")) }
        var keywords: Set<String> = []
        if let value = properties.present("keywords") {
            if let pairs = value.objectValue, pairs.allSatisfy({ $0.1 == .bool(true) }) {
                keywords = Set(pairs.map { Self.keyword($0.0) })
            } else {
                faults.append(("keywords", "`keywords` maps keywords to true."))
            }
        }
        guard let folder, faults.isEmpty else {
            throw .invalidProperties(faults.map(\.1).joined(separator: " "), faults.map(\.0))
        }
        return (folder, keywords)
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

    static func addresses(_ properties: JMAPArguments, _ name: String) throws(SetError) -> [MailAddress] {
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

    static func messageIDs(_ properties: JMAPArguments, _ name: String) throws(SetError) -> [String]? {
        guard let value = properties.present(name) else { return nil }
        guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count,
            list.allSatisfy({ !$0.isEmpty && !$0.unicodeScalars.contains { $0.value <= 0x20 || $0 == "<" || $0 == ">" } })
        else { throw .invalidProperties("`\(name)` is an array of message ids without angle brackets.", [name]) }
        return list
    }
}
