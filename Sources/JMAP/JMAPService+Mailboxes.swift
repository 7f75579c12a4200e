import JSON
import MailStore

extension JMAPService {
    /// `Mailbox/get`: Inbox, Drafts and Sent with their counts.
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
        var list: [JSONValue] = []
        for mailbox in Mailboxes.all where ids?.contains(mailbox.id) ?? true {
            let count = MailFolder(rawValue: mailbox.id).flatMap { counts[$0] } ?? MailStore.FolderCounts()
            let all: [String: JSONValue] = [
                "id": .string(mailbox.id), "name": .string(mailbox.name), "parentId": .null,
                "role": .string(mailbox.role), "sortOrder": .int(Int64(mailbox.sortOrder)),
                "totalEmails": .int(Int64(count.total)), "unreadEmails": .int(Int64(count.unread)),
                "totalThreads": .int(Int64(count.threads)), "unreadThreads": .int(Int64(count.unreadThreads)),
                "myRights": .object(
                    ["mayReadItems", "mayAddItems", "mayRemoveItems", "maySetSeen", "maySetKeywords"].map { ($0, true) }
                        + ["mayCreateChild", "mayRename", "mayDelete", "maySubmit"].map { ($0, false) }),
                "isSubscribed": true,
            ]
            list.append(.object(wanted.map { ($0, all[$0] ?? .null) }))
        }
        let notFound = (ids ?? []).filter { id in !Mailboxes.all.contains { $0.id == id } }
        return .object([
            ("accountId", .string(call.account.id)), ("state", stateBefore), ("list", .array(list)),
            ("notFound", .array(notFound.map(JSONValue.string))),
        ])
    }

    /// `Mailbox/query`: filter by `role`, `name` (substring), `parentId` (null), `hasAnyRole`, `isSubscribed`;
    /// sort by `sortOrder` or `name`.
    func mailboxQuery(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        var matches = Mailboxes.all
        if let filter = try arguments.object("filter") {
            for (key, value) in filter {
                switch (key, value) {
                case ("role", .string(let role)): matches.removeAll { $0.role != role }
                case ("role", .null): matches.removeAll()
                case ("name", .string(let name)): matches.removeAll { !$0.name.lowercased().contains(name.lowercased()) }
                case ("parentId", .null): break
                case ("parentId", .string): matches.removeAll()
                case ("hasAnyRole", .bool(let wanted)): if !wanted { matches.removeAll() }
                case ("isSubscribed", .bool(let wanted)): if !wanted { matches.removeAll() }
                default:
                    throw MethodError("unsupportedFilter", "Mailbox/query cannot filter on `\(key)` with that value.")
                }
            }
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
        let position = max(0, try arguments.int("position") ?? 0)
        let limit = try arguments.int("limit") ?? configuration.maxQueryLimit
        guard limit >= 0 else { throw MethodError.invalidArguments("`limit` must not be negative.") }
        let ids = matches.dropFirst(position).prefix(limit)
        return .object([
            ("accountId", .string(call.account.id)), ("queryState", stateBefore),
            ("canCalculateChanges", false), ("position", .int(Int64(position))),
            ("ids", .array(ids.map { .string($0.id) })), ("total", .int(Int64(matches.count))),
        ])
    }
}
