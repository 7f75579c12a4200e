import JSON

/// The answer of a `/set` method (RFC 8620 section 5.3) as it is gathered, object by object.
struct SetResponse {
    var created: [(String, JSONValue)] = []
    var updated: [(String, JSONValue)] = []
    var destroyed: [JSONValue] = []
    var notCreated: [(String, JSONValue)] = []
    var notUpdated: [(String, JSONValue)] = []
    var notDestroyed: [(String, JSONValue)] = []

    /// The ids of the objects this /set created, updated or destroyed.
    var touchedIDs: Set<String> {
        Set(created.compactMap { $0.1["id"]?.stringValue } + updated.map(\.0) + destroyed.compactMap(\.stringValue))
    }

    /// The response arguments; each list is null when empty.
    func json(accountID: String, states: SetStates) -> JSONValue {
        func map(_ pairs: [(String, JSONValue)]) -> JSONValue { pairs.isEmpty ? .null : .object(pairs) }
        return .object([
            ("accountId", .string(accountID)), ("oldState", states.old), ("newState", states.new),
            ("created", map(created)), ("updated", map(updated)),
            ("destroyed", destroyed.isEmpty ? .null : .array(destroyed)), ("notCreated", map(notCreated)),
            ("notUpdated", map(notUpdated)), ("notDestroyed", map(notDestroyed)),
        ])
    }
}

/// The `oldState` and `newState` of a /set's answer.
struct SetStates {
    let old: JSONValue
    let new: JSONValue
}
