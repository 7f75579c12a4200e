import JSON
import MailDelivery
import ServerKit
import Time

/// `EmailSubmission/get`, `/changes`, `/query` and `/queryChanges` (RFC 8621 7.1-7.4) over the ledger's records:
/// each recipient's `deliveryStatus` moves from `queued` to `yes` or `no` as the queue delivers, and `/changes` reports
/// the move.
extension JMAPService {
    static let submissionProperties = [
        "id", "identityId", "emailId", "threadId", "envelope", "sendAt", "undoStatus", "deliveryStatus", "dsnBlobIds",
        "mdnBlobIds",
    ]

    /// `EmailSubmission/get`.
    func submissionGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let ids = try getIDs(arguments, call)
        let wanted = try properties(
            arguments, known: Set(Self.submissionProperties), fallback: Self.submissionProperties)
        let accountID = call.account.id
        let records = try await outbound.ledger.submissions(accountID: accountID, ids: ids)
        let state = try await outbound.ledger.state(accountID: accountID)
        let found = Set(records.map(\.id))
        return .object([
            ("accountId", .string(accountID)), ("state", .string(state)),
            ("list", .array(records.map { Self.submissionJSON($0, wanted) })),
            ("notFound", .array((ids ?? []).filter { !found.contains($0) }.map(JSONValue.string))),
        ])
    }

    /// One record as an EmailSubmission object, with the `wanted` properties; the envelope is `null` for a record kept
    /// without one (recorded before envelopes were kept).
    static func submissionJSON(_ record: SubmissionRecord, _ wanted: [String]) -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        for property in wanted {
            let value: JSONValue =
                switch property {
                case "id": .string(record.id)
                case "identityId": .string(record.accountID)
                case "emailId": .string(record.emailID)
                case "threadId": .string(record.threadID)
                case "envelope": record.envelope.map(envelopeJSON) ?? .null
                case "sendAt": .string(RFC3339.format(record.sendAt))
                case "undoStatus": "final"
                case "deliveryStatus": .object(record.recipients.map { ($0.address, deliveryStatus($0)) })
                case "dsnBlobIds": dsnBlobIDs(record)
                case "mdnBlobIds": .array([])
                default: .null
                }
            pairs.append((property, value))
        }
        return .object(pairs)
    }

    /// `dsnBlobIds`: the blobs of the bounces the queue put in the sender's inbox for `record` (each an email's
    /// blob, `M` and its id, as `Email/get` names it).
    static func dsnBlobIDs(_ record: SubmissionRecord) -> JSONValue {
        .array(record.bounceEmailIDs.map { .string("M" + $0) })
    }

    /// `EmailSubmission/changes`: submissions recorded (`created`) or whose recipients moved (`updated`) since
    /// `sinceState`; submissions are never destroyed here (the operator's delete ends their recipients instead).
    func submissionChanges(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        guard let since = try arguments.string("sinceState") else {
            throw MethodError.invalidArguments("`sinceState` is required.")
        }
        let maxChanges = try Self.maxChanges(arguments, cap: configuration.maxObjectsInGet)
        guard
            let changes = try await outbound.ledger.changes(
                accountID: call.account.id, since: since, maxChanges: maxChanges)
        else { throw Self.cannotCalculate }
        return .object([
            ("accountId", .string(call.account.id)), ("oldState", .string(since)),
            ("newState", .string(changes.newState)), ("hasMoreChanges", .bool(changes.hasMoreChanges)),
            ("created", .array(changes.created.map(JSONValue.string))),
            ("updated", .array(changes.updated.map(JSONValue.string))), ("destroyed", .array([])),
        ])
    }

    /// `EmailSubmission/query`: the filter conditions of RFC 8621 7.3 (`identityIds`, `emailIds`, `threadIds`,
    /// `undoStatus`, `before`, `after`), sorted by `emailId`, `threadId` or `sentAt` (oldest first by default).
    func submissionQuery(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let filter = try SubmissionFilter(arguments.present("filter"))
        let sort = try SubmissionSort(arguments.present("sort"))
        let position = try arguments.int("position") ?? 0
        guard position >= 0 else { throw MethodError("invalidArguments", "`position` must not be negative.") }
        let limit = min(try arguments.int("limit") ?? configuration.maxQueryLimit, configuration.maxQueryLimit)
        guard limit >= 0 else { throw MethodError("invalidArguments", "`limit` must not be negative.") }
        let accountID = call.account.id
        let records = try await outbound.ledger.submissions(accountID: accountID, ids: nil)
        let state = try await outbound.ledger.state(accountID: accountID)
        let ids = sort.ordered(records.filter(filter.matches)).map(\.id)
        var pairs: [(String, JSONValue)] = [
            ("accountId", .string(accountID)), ("queryState", .string(state)), ("canCalculateChanges", false),
            ("position", .int(Int64(min(position, ids.count)))),
            ("ids", .array(ids.dropFirst(position).prefix(limit).map(JSONValue.string))),
        ]
        pairs += try QueryTotal(arguments).member(ids.count)
        pairs.append(("limit", .int(Int64(limit))))
        return .object(pairs)
    }
}

/// The `EmailSubmission/query` filter condition (RFC 8621 7.3); operators are not supported.
struct SubmissionFilter {
    var identityIDs: Set<String>?
    var emailIDs: Set<String>?
    var threadIDs: Set<String>?
    var undoStatus: String?
    var before: Int64?
    var after: Int64?

    init(_ value: JSONValue?) throws(MethodError) {
        guard let value else { return }
        guard let object = value.objectValue else {
            throw MethodError("unsupportedFilter", "The filter must be a FilterCondition object.")
        }
        for (key, item) in object {
            switch key {
            case "identityIds", "emailIds", "threadIds":
                guard let list = item.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                    throw MethodError("unsupportedFilter", "`\(key)` must be an array of ids.")
                }
                let ids = Set(list.compactMap(\.stringValue))
                if key == "identityIds" {
                    identityIDs = ids
                } else if key == "emailIds" {
                    emailIDs = ids
                } else {
                    threadIDs = ids
                }
            case "undoStatus":
                guard let status = item.stringValue else {
                    throw MethodError("unsupportedFilter", "`undoStatus` must be a string.")
                }
                undoStatus = status
            case "before", "after":
                guard let text = item.stringValue, let time = RFC3339.parse(text) else {
                    throw MethodError("unsupportedFilter", "`\(key)` must be a UTCDate.")
                }
                if key == "before" { before = time } else { after = time }
            default:
                throw MethodError("unsupportedFilter", "`\(key)` is not a filter of EmailSubmission/query here.")
            }
        }
    }

    func matches(_ record: SubmissionRecord) -> Bool {
        (identityIDs?.contains(record.accountID) ?? true) && (emailIDs?.contains(record.emailID) ?? true)
            && (threadIDs?.contains(record.threadID) ?? true) && (undoStatus.map { $0 == "final" } ?? true)
            && (before.map { record.sendAt < $0 } ?? true) && (after.map { record.sendAt >= $0 } ?? true)
    }
}

/// The `EmailSubmission/query` sort: one comparator of `emailId`, `threadId` or `sentAt`.
struct SubmissionSort {
    var property = "sentAt"
    var ascending = true

    init(_ value: JSONValue?) throws(MethodError) {
        guard let value else { return }
        guard let list = value.arrayValue, list.count <= 1 else {
            throw MethodError("unsupportedSort", "Sort by one of emailId, threadId, sentAt.")
        }
        guard let comparator = list.first else { return }
        guard let name = comparator["property"]?.stringValue, ["emailId", "threadId", "sentAt"].contains(name) else {
            throw MethodError("unsupportedSort", "Sort by one of emailId, threadId, sentAt.")
        }
        property = name
        ascending = comparator["isAscending"]?.boolValue ?? true
    }

    /// `records` (oldest first) in this order; ties keep their recorded order.
    func ordered(_ records: [SubmissionRecord]) -> [SubmissionRecord] {
        let key: (SubmissionRecord) -> String =
            switch property {
            case "emailId": { $0.emailID }
            case "threadId": { $0.threadID }
            default: { String(repeating: "0", count: max(0, 20 - String($0.sendAt).count)) + String($0.sendAt) }
            }
        let indexed = Array(records.enumerated())
        return indexed.sorted { lhs, rhs in
            let (a, b) = (key(lhs.element), key(rhs.element))
            if a == b { return lhs.offset < rhs.offset }
            return ascending ? a < b : a > b
        }.map(\.element)
    }
}
