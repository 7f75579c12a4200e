import JSON
import MailStore

/// `Email/changes`, `Mailbox/changes`, `Thread/changes`, `Identity/changes` (RFC 8620 section 5.2) and
/// `Email/queryChanges` (section 5.6), from the store's change log. Every type shares the account's one state.
extension JMAPService {
    /// Which objects a `/changes` method reports.
    enum ChangedType {
        case email, mailbox, thread
    }

    /// The count properties: all that changes of a Mailbox when only messages changed.
    static let mailboxCountProperties: [JSONValue] = ["totalEmails", "unreadEmails", "totalThreads", "unreadThreads"]

    /// `Foo/changes` for `type`: what changed since `sinceState`, at most `maxChanges` ids.
    func changes(_ type: ChangedType, _ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        guard let since = try arguments.string("sinceState") else {
            throw MethodError.invalidArguments("`sinceState` is required.")
        }
        let maxChanges = try Self.maxChanges(arguments, cap: configuration.maxObjectsInGet)
        let address = call.account.address
        guard let old = Int64(since), let (log, state) = try await store.changes(address: address, since: old) else {
            throw Self.cannotCalculate
        }
        let set: MailChangeSet
        switch type {
        case .email:
            set = MailChangeSet.emails(log, since: old, state: state, maxChanges: maxChanges)
        case .mailbox:
            set = MailChangeSet.mailboxes(log, since: old, state: state, maxChanges: maxChanges)
        case .thread:
            let existing = try await store.existingThreads(address: address, among: log.compactMap(\.threadID))
            set = MailChangeSet.threads(log, since: old, state: state, maxChanges: maxChanges, existing: existing)
        }
        // One change can name more ids than the client allows (a move names two mailboxes); the RFC forbids
        // answering more than `maxChanges`, and one change cannot be split, so the client starts over.
        guard set.created.count + set.updated.count + set.destroyed.count <= maxChanges else {
            throw Self.cannotCalculate
        }
        var pairs: [(String, JSONValue)] = [
            ("accountId", .string(call.account.id)), ("oldState", .string(since)),
            ("newState", .string(String(set.newState))), ("hasMoreChanges", .bool(set.hasMoreChanges)),
            ("created", .array(set.created.map(JSONValue.string))),
            ("updated", .array(set.updated.map(JSONValue.string))),
            ("destroyed", .array(set.destroyed.map(JSONValue.string))),
        ]
        if type == .mailbox {
            // RFC 8621 §2.2: the counts when only counts changed, that is when every change of the run is a message's;
            // null once a folder's own row is in it (made, renamed, moved, subscribed, destroyed): then any property.
            let foldersChanged = log.contains { !$0.kind.isMessage && $0.seq <= set.newState }
            pairs.append(
                ("updatedProperties",
                 set.updated.isEmpty || foldersChanged ? .null : .array(Self.mailboxCountProperties)))
        }
        return .object(pairs)
    }

    /// `Identity/changes`: the one identity never changes, so its state is always `0`.
    func identityChanges(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        guard let since = try arguments.string("sinceState") else {
            throw MethodError.invalidArguments("`sinceState` is required.")
        }
        _ = try Self.maxChanges(arguments, cap: configuration.maxObjectsInGet)
        guard since == "0" else { throw Self.cannotCalculate }
        return .object([
            ("accountId", .string(call.account.id)), ("oldState", "0"), ("newState", "0"),
            ("hasMoreChanges", false), ("created", .array([])), ("updated", .array([])), ("destroyed", .array([])),
        ])
    }

    /// `Email/queryChanges`: every message changed since `sinceQueryState` is `removed` (RFC 8620 section 5.6
    /// allows ids that were not in the old results), and each created or updated one that is in the results now is
    /// `added` with its index, so a client's cached list comes out right whatever the filter and sort.
    func emailQueryChanges(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        guard let since = try arguments.string("sinceQueryState") else {
            throw MethodError.invalidArguments("`sinceQueryState` is required.")
        }
        let query = try emailQueryShape(arguments)
        let maxChanges = try arguments.int("maxChanges")
        if let maxChanges, maxChanges <= 0 {
            throw MethodError.invalidArguments("`maxChanges` must be a positive integer.")
        }
        let address = call.account.address
        guard let old = Int64(since), let (log, state) = try await store.changes(address: address, since: old) else {
            throw Self.cannotCalculate
        }
        let set = MailChangeSet.emails(log, since: old, state: state, maxChanges: Int.max)
        let removed = set.updated + set.destroyed
        let candidates = Set(set.created + set.updated)
        let calculateTotal = try arguments.bool("calculateTotal", default: false)
        let now = try await store.query(
            address: address, filter: query.filter, sort: query.sort, position: 0, limit: Int.max, countTotal: false)
        let added: [JSONValue] = now.ids.enumerated().compactMap { index, id in
            candidates.contains(id) ? .object([("id", .string(id)), ("index", .int(Int64(index)))]) : nil
        }
        if let maxChanges, removed.count + added.count > maxChanges {
            throw MethodError("tooManyChanges", "More than maxChanges changed: query again.")
        }
        var pairs: [(String, JSONValue)] = [
            ("accountId", .string(call.account.id)), ("oldQueryState", .string(since)),
            ("newQueryState", .string(String(state))), ("removed", .array(removed.map(JSONValue.string))),
            ("added", .array(added)),
        ]
        if calculateTotal { pairs.append(("total", .int(Int64(now.ids.count)))) }
        return .object(pairs)
    }

    static let cannotCalculate = MethodError(
        "cannotCalculateChanges",
        "The state is older than this server's change log or was never issued: fetch again with /get or /query.")

    /// `maxChanges`: a positive integer, at most `cap`; `cap` when absent.
    static func maxChanges(_ arguments: JMAPArguments, cap: Int) throws(MethodError) -> Int {
        guard let given = try arguments.int("maxChanges") else { return cap }
        guard given > 0 else { throw .invalidArguments("`maxChanges` must be a positive integer.") }
        return min(given, cap)
    }
}
