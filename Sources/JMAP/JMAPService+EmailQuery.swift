import JSON
import MailStore
import ServerKit
import Time

extension JMAPService {
    /// `Email/query` (RFC 8621 section 4.4): filters, sorts, `position` (negative counts from the end), `anchor`
    /// with `anchorOffset`, `limit` (at most `maxQueryLimit`), `calculateTotal`.
    func emailQuery(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        let (filter, sort) = try emailQueryShape(arguments)
        let limit = try arguments.int("limit") ?? configuration.maxQueryLimit
        guard limit >= 0 else { throw MethodError.invalidArguments("`limit` must not be negative.") }
        let capped = min(limit, configuration.maxQueryLimit)
        let address = call.account.address
        var position = try arguments.int("position") ?? 0
        if let anchor = try arguments.string("anchor") {
            let all = try await store.query(
                address: address, filter: filter, sort: sort, position: 0, limit: Int.max, countTotal: false)
            guard let index = all.ids.firstIndex(of: anchor) else {
                throw MethodError("anchorNotFound", "The anchor is not among the results.")
            }
            let anchorOffset = try arguments.int("anchorOffset") ?? 0
            let (sum, overflow) = index.addingReportingOverflow(anchorOffset)
            position = overflow ? (anchorOffset > 0 ? Int.max : 0) : max(0, sum)
        } else if position < 0 {
            let total = try await store.query(address: address, filter: filter, sort: sort, position: 0, limit: 0).total
            position = max(0, (total ?? 0) + position)
        }
        let total = try QueryTotal(arguments)
        let result = try await store.query(
            address: address, filter: filter, sort: sort, position: position, limit: capped, countTotal: total.requested)
        var pairs: [(String, JSONValue)] = [
            ("accountId", .string(call.account.id)), ("queryState", stateBefore),
            ("canCalculateChanges", true), ("position", .int(Int64(position))),
            ("ids", .array(result.ids.map(JSONValue.string))),
        ]
        pairs += total.member(result.total)
        if capped < limit { pairs.append(("limit", .int(Int64(capped)))) }
        return .object(pairs)
    }

    /// The `filter` and `sort` of an `Email/query` or `Email/queryChanges` as the store's.
    func emailQueryShape(_ arguments: JMAPArguments) throws -> (filter: MailFilter, sort: [MailSort]) {
        let filter = try arguments.present("filter").map(Self.filter) ?? .all([])
        var sort: [MailSort] = []
        if let given = arguments.present("sort") {
            guard let comparators = given.arrayValue else { throw MethodError.invalidArguments("`sort` must be an array.") }
            for comparator in comparators {
                guard let name = comparator["property"]?.stringValue, let property = MailSort.Property(rawValue: name)
                else {
                    throw MethodError(
                        "unsupportedSort",
                        "Sort by one of \(MailSort.Property.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                sort.append(MailSort(property: property, ascending: comparator["isAscending"]?.boolValue ?? true))
            }
        }
        if try arguments.bool("collapseThreads", default: false) {
            throw MethodError.invalidArguments("collapseThreads is not supported here; query without it.")
        }
        return (filter, sort)
    }

    /// A FilterOperator or FilterCondition as the store's filter.
    static func filter(_ value: JSONValue) throws(MethodError) -> MailFilter {
        guard let pairs = value.objectValue else { throw .invalidArguments("`filter` must be an object.") }
        if let op = value["operator"]?.stringValue {
            guard let conditions = value["conditions"]?.arrayValue else {
                throw .invalidArguments("A FilterOperator needs `conditions`.")
            }
            var inner: [MailFilter] = []
            for condition in conditions { inner.append(try filter(condition)) }
            switch op {
            case "AND": return .all(inner)
            case "OR": return .any(inner)
            case "NOT": return .none(inner)
            default: throw .invalidArguments("`operator` is AND, OR or NOT.")
            }
        }
        var parts: [MailFilter] = []
        for (key, value) in pairs {
            func text() throws(MethodError) -> String {
                guard let text = value.stringValue else { throw .invalidArguments("`\(key)` must be a string.") }
                return text
            }
            func time() throws(MethodError) -> Int64 {
                guard let text = value.stringValue, let seconds = RFC3339.parse(text) else {
                    throw .invalidArguments("`\(key)` must be a UTCDate such as 2026-01-31T12:00:00Z.")
                }
                return seconds
            }
            func size() throws(MethodError) -> Int64 {
                guard let size = value.intValue, size >= 0 else { throw .invalidArguments("`\(key)` must be a size.") }
                return size
            }
            switch key {
            case "inMailbox":
                let id = try text()
                parts.append(MailFolder(rawValue: id).map(MailFilter.inFolder) ?? .any([]))
            case "inMailboxOtherThan":
                guard let ids = value.arrayValue?.compactMap(\.stringValue) else {
                    throw .invalidArguments("`inMailboxOtherThan` must be an array of ids.")
                }
                parts.append(.notInFolders(ids.compactMap(MailFolder.init(rawValue:))))
            case "before": parts.append(.before(try time()))
            case "after": parts.append(.after(try time()))
            case "minSize": parts.append(.minSize(try size()))
            case "maxSize": parts.append(.maxSize(try size()))
            case "hasKeyword": parts.append(.hasKeyword(Self.keyword(try text())))
            case "notKeyword": parts.append(.notKeyword(Self.keyword(try text())))
            case "allInThreadHaveKeyword": parts.append(.threadKeyword(Self.keyword(try text()), .all))
            case "someInThreadHaveKeyword": parts.append(.threadKeyword(Self.keyword(try text()), .some))
            case "noneInThreadHaveKeyword": parts.append(.threadKeyword(Self.keyword(try text()), .none))
            case "hasAttachment":
                guard let flag = value.boolValue else { throw .invalidArguments("`hasAttachment` must be a boolean.") }
                parts.append(.hasDownloadPart(flag))
            case "text": parts.append(.text(try text()))
            case "from": parts.append(.from(try text()))
            case "to": parts.append(.to(try text()))
            case "cc": parts.append(.cc(try text()))
            case "bcc": parts.append(.bcc(try text()))
            case "subject": parts.append(.subject(try text()))
            case "body": parts.append(.body(try text()))
            case "header":
                // [name] or [name, text]; a name is RFC 5322's field name: printable ASCII but the colon.
                let strings = value.arrayValue?.compactMap(\.stringValue) ?? []
                guard strings.count == value.arrayValue?.count, (1...2).contains(strings.count),
                    !strings[0].isEmpty, strings[0].unicodeScalars.allSatisfy({ (33...126).contains($0.value) && $0 != ":" })
                else {
                    throw .invalidArguments("`header` is [name] or [name, text], the name a header field's.")
                }
                parts.append(.header(strings[0], containing: strings.count == 2 ? strings[1] : nil))
            default:
                throw MethodError("unsupportedFilter", "Email/query cannot filter on `\(key)` here.")
            }
        }
        return .all(parts)
    }
}
