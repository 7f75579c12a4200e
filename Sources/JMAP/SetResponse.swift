import JSON

/// The answer of a `/set` method (RFC 8620 section 5.3) as it is gathered, object by object.
struct SetResponse {
    var created: [(String, JSONValue)] = []
    var updated: [(String, JSONValue)] = []
    var destroyed: [JSONValue] = []
    var notCreated: [(String, JSONValue)] = []
    var notUpdated: [(String, JSONValue)] = []
    var notDestroyed: [(String, JSONValue)] = []

    /// The response arguments; each list is null when empty.
    func json(accountID: String, oldState: JSONValue, newState: JSONValue) -> JSONValue {
        func map(_ pairs: [(String, JSONValue)]) -> JSONValue { pairs.isEmpty ? .null : .object(pairs) }
        return .object([
            ("accountId", .string(accountID)), ("oldState", oldState), ("newState", newState),
            ("created", map(created)), ("updated", map(updated)),
            ("destroyed", destroyed.isEmpty ? .null : .array(destroyed)), ("notCreated", map(notCreated)),
            ("notUpdated", map(notUpdated)), ("notDestroyed", map(notDestroyed)),
        ])
    }
}
