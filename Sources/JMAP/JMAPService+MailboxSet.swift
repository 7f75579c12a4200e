import JSON
import MailStore

extension JMAPService {
    /// `Mailbox/set` (RFC 8621 §2.5): make, rename or move (`name`, `parentId`), subscribe (`isSubscribed`) and
    /// destroy (with `onDestroyRemoveEmails`) the account's mailboxes, through the store's folders (decision 35), so
    /// IMAP and the web inbox see the same tree. The six fixed mailboxes keep their names and roles (`forbidden`);
    /// a role cannot be given (each has its fixed mailbox).
    func mailboxSet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let oldState = try await stateBeforeSet(arguments, call)
        let create = try arguments.object("create") ?? []
        let update = try arguments.object("update") ?? []
        let destroy = try arguments.strings("destroy") ?? []
        let removeEmails = try arguments.bool("onDestroyRemoveEmails", default: false)
        try checkSetSize(create.count + update.count + destroy.count)
        var response = SetResponse()
        for (creationID, value) in Self.parentsFirst(create) {
            do {
                let (id, sortOrder) = try await createMailbox(value, call)
                call.createdIDs[creationID] = id.rawValue
                response.created.append((creationID, Self.createdMailbox(id, sortOrder: sortOrder)))
            } catch let error as SetError {
                response.notCreated.append((creationID, error.json))
            }
        }
        for (key, value) in update {
            do {
                try await updateMailbox(call.id(key) ?? key, value, call)
                response.updated.append((call.id(key) ?? key, .null))
            } catch let error as SetError {
                response.notUpdated.append((key, error.json))
            }
        }
        for key in destroy {
            let id = call.id(key) ?? key
            do {
                guard let folder = try await mailboxes(call).folder(id) else { throw SetError.notFound }
                try await folderWrite {
                    try await store.deleteFolder(address: call.account.address, folder, removingMessages: removeEmails)
                }
                response.destroyed.append(.string(id))
            } catch let error as SetError {
                response.notDestroyed.append((key, error.json))
            }
        }
        let states = try await statesAfterSet(before: oldState, touched: response.touchedIDs, call)
        return response.json(accountID: call.account.id, states: states)
    }

    /// `create` ordered so that a mailbox whose `parentId` is another creation's `#id` comes after it (RFC 8620 §5.3:
    /// references within one /set resolve whatever order the client wrote); a cycle keeps its order, and fails on a
    /// parent not made.
    static func parentsFirst(_ create: [(String, JSONValue)]) -> [(String, JSONValue)] {
        var pending = create
        var ordered: [(String, JSONValue)] = []
        while !pending.isEmpty {
            let waiting = Set(pending.map(\.0))
            let ready = pending.filter { _, value in
                guard let parent = value["parentId"]?.stringValue, parent.hasPrefix("#") else { return true }
                return !waiting.contains(String(parent.dropFirst()))
            }
            guard !ready.isEmpty else { return ordered + pending }
            ordered += ready
            pending.removeAll { item in ready.contains { $0.0 == item.0 } }
        }
        return ordered
    }

    /// The properties a created mailbox has that the client did not give (RFC 8620 §5.3).
    private static func createdMailbox(_ id: MailFolder, sortOrder: Int) -> JSONValue {
        .object([
            ("id", .string(id.rawValue)), ("role", .null), ("sortOrder", .int(Int64(sortOrder))),
            ("totalEmails", 0), ("unreadEmails", 0), ("totalThreads", 0), ("unreadThreads", 0),
            ("myRights", rights(Mailboxes.Entry(
                id: id.rawValue, name: "", parentID: nil, role: nil, sortOrder: Mailboxes.madeSortOrder,
                isSubscribed: false, isFixed: false))),
        ])
    }

    /// The server-set properties a create or update may not give, and those it may.
    private static let serverSetMailbox: Set<String> = [
        "id", "totalEmails", "unreadEmails", "totalThreads", "unreadThreads", "myRights",
    ]

    /// Makes one mailbox; returns its key and its `sortOrder`.
    private func createMailbox(_ value: JSONValue, _ call: JMAPCall) async throws -> (MailFolder, Int) {
        guard let object = value.objectValue else { throw SetError.invalidProperties("A Mailbox must be an object.", []) }
        try Self.checkMailboxProperties(object, current: nil)
        let properties = JMAPArguments(pairs: object)
        guard case .string(let name)? = properties["name"] else {
            throw SetError.invalidProperties("`name` is required, a string.", ["name"])
        }
        let parent = try await parentFolder(properties["parentId"], call)
        let sortOrder = try Self.sortOrder(properties)
        let folder = try await folderWrite {
            try await store.createFolder(address: call.account.address, name: name, parent: parent, now: clock())
        }
        if let sortOrder, sortOrder != Mailboxes.madeSortOrder {
            try await folderWrite { try await store.setSortOrder(address: call.account.address, folder, sortOrder) }
        }
        if properties["isSubscribed"] == .bool(true), let entry = try await mailboxes(call).tree.path(of: folder) {
            try await store.setSubscribed(address: call.account.address, path: entry, true)
        }
        return (folder, sortOrder ?? Mailboxes.madeSortOrder)
    }

    private func updateMailbox(_ id: String, _ value: JSONValue, _ call: JMAPCall) async throws {
        guard let patch = value.objectValue else { throw SetError.invalidProperties("A patch must be an object.", []) }
        let mailboxes = try await mailboxes(call)
        guard let folder = mailboxes.folder(id), let entry = mailboxes.tree.entry(folder),
            let shown = mailboxes.all.first(where: { $0.id == id })
        else { throw SetError.notFound }
        let current = Self.mailboxObject(shown, try await store.folderCounts(address: call.account.address))
        try Self.checkMailboxProperties(patch, current: current)
        let properties = JMAPArguments(pairs: patch)
        let name: String
        switch properties["name"] {
        case nil: name = entry.name
        case .string(let given)?: name = given
        default: throw SetError.invalidProperties("`name` is a string.", ["name"])
        }
        var parent = entry.parent
        if let given = properties["parentId"] { parent = try await parentFolder(given, call) }
        if name != entry.name || parent != entry.parent {
            try await folderWrite {
                try await store.renameFolder(address: call.account.address, folder, name: name, parent: parent)
            }
        }
        if let sortOrder = try Self.sortOrder(properties), sortOrder != shown.sortOrder {
            guard !folder.isFixed else {
                throw SetError(.forbidden, description: "The server orders the six fixed mailboxes.")
            }
            try await folderWrite { try await store.setSortOrder(address: call.account.address, folder, sortOrder) }
        }
        switch properties["isSubscribed"] {
        case nil: break
        case .bool(let subscribed)?:
            guard !folder.isFixed || subscribed else {
                throw SetError(.forbidden, description: "The six fixed mailboxes are always subscribed.")
            }
            guard !folder.isFixed, let path = try await self.mailboxes(call).tree.path(of: folder) else { break }
            try await store.setSubscribed(address: call.account.address, path: path, subscribed)
        default: throw SetError.invalidProperties("`isSubscribed` is a boolean.", ["isSubscribed"])
        }
    }

    /// Refuses what a Mailbox create or patch may not set: server-set properties and a role (each role has its fixed
    /// mailbox), except, in a patch (`current`: the mailbox as `Mailbox/get` gives it), with the value they have now
    /// (RFC 8620 §5.3); an unknown property. `sortOrder` is the client's (RFC 8621 §2), checked by ``sortOrder(_:)``.
    private static func checkMailboxProperties(_ object: [(String, JSONValue)], current: [String: JSONValue]?)
        throws(SetError)
    {
        for (key, value) in object {
            switch key {
            case "name", "parentId", "isSubscribed", "sortOrder": continue
            case "role" where value == .null && current?["role"] ?? .null == .null: continue
            case _ where current.map({ $0[key].map { same($0, value) } ?? false }) == true: continue
            case "role": throw SetError.invalidProperties("Each role has its fixed mailbox; none can be given.", [key])
            case _ where serverSetMailbox.contains(key):
                throw SetError.invalidProperties("`\(key)` is set by the server.", [key])
            default: throw SetError.invalidProperties("`\(key)` is not a Mailbox property.", [key])
            }
        }
    }

    /// Whether two JSON values are the same, an object's members in any order (JSON objects are unordered).
    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            let ys = Dictionary(y, uniquingKeysWith: { first, _ in first })
            return x.count == y.count && x.allSatisfy { key, value in ys[key].map { same(value, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default: return a == b
        }
    }

    /// The `sortOrder` given, an UnsignedInt (RFC 8620 §1.3: at most 2^53-1); nil when absent.
    private static func sortOrder(_ properties: JMAPArguments) throws(SetError) -> Int? {
        guard let value = properties["sortOrder"] else { return nil }
        guard case .int(let order) = value, order >= 0, order <= 9_007_199_254_740_991 else {
            throw SetError.invalidProperties("`sortOrder` is an unsigned integer.", ["sortOrder"])
        }
        return Int(order)
    }

    /// The folder `value` (a `parentId`: null, an id or `#creation`) names.
    private func parentFolder(_ value: JSONValue?, _ call: JMAPCall) async throws -> MailFolder? {
        switch value {
        case nil, .null?: return nil
        case .string(let id)?:
            guard let folder = try await mailboxes(call).folder(call.id(id) ?? id) else {
                throw SetError.invalidProperties("No such parent mailbox.", ["parentId"])
            }
            return folder
        default: throw SetError.invalidProperties("`parentId` is a mailbox id or null.", ["parentId"])
        }
    }

    /// Runs a folder write, its refusal made the SetError RFC 8621 §2.5 names.
    private func folderWrite<T>(_ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch let error as MailFolderError {
            throw Self.setError(error, store.folderLimits)
        }
    }

    static func setError(_ error: MailFolderError, _ limits: MailFolderLimits) -> SetError {
        switch error {
        case .noSuchFolder: return .notFound
        case .exists: return .invalidProperties("A mailbox of that name is there already.", ["name"])
        case .fixed: return SetError(.forbidden, description: "The six fixed mailboxes cannot be renamed or destroyed.")
        case .hasChildren: return SetError(.mailboxHasChild, description: "Destroy the mailboxes under it first.")
        case .notEmpty:
            return SetError(.mailboxHasEmail, description: "It holds messages: set onDestroyRemoveEmails to remove them.")
        case .underItself: return .invalidProperties("A mailbox cannot be moved under itself.", ["parentId"])
        case .name:
            return .invalidProperties("A name is not empty, holds no `/` nor control character, no space at an end.", ["name"])
        case .limit(.count):
            return SetError(.overQuota, description: "At most \(limits.maxFolders) mailboxes may be made.")
        case .limit(.nameLength):
            return .invalidProperties("A name may be at most \(limits.maxNameBytes) bytes.", ["name"])
        case .limit(.depth):
            return .invalidProperties("Mailboxes may be at most \(limits.maxDepth) levels deep.", ["parentId"])
        }
    }
}
