import JSON
import MailStore

extension JMAPService {
    /// The account's mailboxes now.
    func mailboxes(_ call: JMAPCall) async throws -> Mailboxes {
        Mailboxes(
            tree: try await store.folders(address: call.account.address),
            subscriptions: try await store.subscriptions(address: call.account.address))
    }

    /// `Mailbox/get`: every mailbox of the account, the six fixed ones with their roles and those it made, with
    /// their counts.
    func mailboxGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        let known: Set<String> = [
            "id", "name", "parentId", "role", "sortOrder", "totalEmails", "unreadEmails", "totalThreads",
            "unreadThreads", "myRights", "isSubscribed",
        ]
        let wanted = try properties(arguments, known: known, fallback: known.sorted())
        let ids = try getIDs(arguments, call)
        let counts = try await store.folderCounts(address: call.account.address)
        let mailboxes = try await mailboxes(call)
        var list: [JSONValue] = []
        for mailbox in mailboxes.all where ids?.contains(mailbox.id) ?? true {
            let all = Self.mailboxObject(mailbox, counts)
            list.append(.object(wanted.map { ($0, all[$0] ?? .null) }))
        }
        let notFound = (ids ?? []).filter { id in !mailboxes.all.contains { $0.id == id } }
        return .object([
            ("accountId", .string(call.account.id)), ("state", stateBefore), ("list", .array(list)),
            ("notFound", .array(notFound.map(JSONValue.string))),
        ])
    }

    /// Every property of `mailbox` as `Mailbox/get` gives it, by name.
    static func mailboxObject(_ mailbox: Mailboxes.Entry, _ counts: [MailFolder: MailStore.FolderCounts])
        -> [String: JSONValue]
    {
        let count = MailFolder(rawValue: mailbox.id).flatMap { counts[$0] } ?? MailStore.FolderCounts()
        return [
            "id": .string(mailbox.id), "name": .string(mailbox.name),
            "parentId": mailbox.parentID.map(JSONValue.string) ?? .null,
            "role": mailbox.role.map(JSONValue.string) ?? .null, "sortOrder": .int(Int64(mailbox.sortOrder)),
            "totalEmails": .int(Int64(count.total)), "unreadEmails": .int(Int64(count.unread)),
            "totalThreads": .int(Int64(count.threads)), "unreadThreads": .int(Int64(count.unreadThreads)),
            "myRights": Self.rights(mailbox), "isSubscribed": .bool(mailbox.isSubscribed),
        ]
    }

    /// What the account may do with `mailbox`: everything but renaming and deleting one of the six fixed ones, and
    /// submitting (sending is EmailSubmission/set's, from any mailbox).
    static func rights(_ mailbox: Mailboxes.Entry) -> JSONValue {
        .object(
            ["mayReadItems", "mayAddItems", "mayRemoveItems", "maySetSeen", "maySetKeywords", "mayCreateChild"].map {
                ($0, true)
            } + [("mayRename", .bool(!mailbox.isFixed)), ("mayDelete", .bool(!mailbox.isFixed)), ("maySubmit", false)])
    }

    /// `Mailbox/query`: filter by `role`, `name` (substring), `parentId` (null), `hasAnyRole`, `isSubscribed`, and
    /// by FilterOperators of those (`AND`, `OR`, `NOT` over `conditions`, RFC 8620 §5.5); sort by `sortOrder` or
    /// `name`.
    func mailboxQuery(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        var matches = try await mailboxes(call).all
        if let filter = arguments.present("filter"), filter != .null {
            guard filter.objectValue != nil else { throw MethodError.invalidArguments("`filter` must be an object.") }
            let predicate = try Self.mailboxFilter(filter, call, depth: 0)
            matches.removeAll { !predicate($0) }
        }
        if let sort = arguments.present("sort") {
            guard let comparators = sort.arrayValue else { throw MethodError.invalidArguments("`sort` must be an array.") }
            for comparator in comparators.reversed() {
                let ascending = comparator["isAscending"]?.boolValue ?? true
                switch comparator["property"]?.stringValue {
                case "sortOrder"?: matches.sort { ascending ? $0.sortOrder < $1.sortOrder : $0.sortOrder > $1.sortOrder }
                case "name"?: matches.sort { ascending ? $0.name < $1.name : $0.name > $1.name }
                default: throw MethodError("unsupportedSort", "Mailbox/query sorts by `sortOrder` or `name`.")
                }
            }
        }
        // RFC 8620 section 5.5: a negative position counts from the end of the results, clamped to their start.
        let given = try arguments.int("position") ?? 0
        let position = given < 0 ? max(0, matches.count + given) : given
        let limit = try arguments.int("limit") ?? configuration.maxQueryLimit
        guard limit >= 0 else { throw MethodError.invalidArguments("`limit` must not be negative.") }
        let ids = matches.dropFirst(position).prefix(limit)
        return .object([
            ("accountId", .string(call.account.id)), ("queryState", stateBefore),
            ("canCalculateChanges", false), ("position", .int(Int64(position))),
            ("ids", .array(ids.map { .string($0.id) })), ("total", .int(Int64(matches.count))),
        ])
    }

    /// How deep FilterOperators may nest in a `Mailbox/query` filter: far more than a client writes, and a bound on
    /// what one request makes the server build.
    static let maxFilterDepth = 16

    /// The test `filter` (a FilterCondition, or a FilterOperator of them, RFC 8620 §5.5) puts to each mailbox.
    /// - Throws: `unsupportedFilter` for a condition or operator it does not know, or nesting past
    ///   ``maxFilterDepth``.
    static func mailboxFilter(_ filter: JSONValue, _ call: JMAPCall, depth: Int) throws -> (Mailboxes.Entry) -> Bool {
        guard let pairs = filter.objectValue else {
            throw MethodError("unsupportedFilter", "A Mailbox/query filter is an object.")
        }
        if let name = filter["operator"] {
            guard depth < maxFilterDepth else {
                throw MethodError("unsupportedFilter", "Filters nest at most \(maxFilterDepth) deep.")
            }
            guard let list = filter["conditions"]?.arrayValue, pairs.count == 2 else {
                throw MethodError("unsupportedFilter", "A FilterOperator has `operator` and `conditions` (an array).")
            }
            let tests = try list.map { try mailboxFilter($0, call, depth: depth + 1) }
            switch name.stringValue {
            case "AND"?: return { mailbox in tests.allSatisfy { $0(mailbox) } }
            case "OR"?: return { mailbox in tests.contains { $0(mailbox) } }
            case "NOT"?: return { mailbox in !tests.contains { $0(mailbox) } }
            default: throw MethodError("unsupportedFilter", "`operator` is AND, OR or NOT.")
            }
        }
        let tests: [(Mailboxes.Entry) -> Bool] = try pairs.map { key, value in
            switch (key, value) {
            case ("role", .string(let role)): return { $0.role == role }
            case ("role", .null): return { $0.role == nil }
            case ("name", .string(let name)): return { $0.name.lowercased().contains(name.lowercased()) }
            case ("parentId", .null): return { $0.parentID == nil }
            case ("parentId", .string(let parent)):
                let id = call.id(parent) ?? parent
                return { $0.parentID == id }
            case ("hasAnyRole", .bool(let wanted)): return { ($0.role != nil) == wanted }
            case ("isSubscribed", .bool(let wanted)): return { $0.isSubscribed == wanted }
            default:
                throw MethodError("unsupportedFilter", "Mailbox/query cannot filter on `\(key)` with that value.")
            }
        }
        return { mailbox in tests.allSatisfy { $0(mailbox) } }
    }
}
