import JSON

/// The `text/event-stream` events of the JMAP event source (RFC 8620 section 7.3), as bytes.
enum EventSourceEvent {
    /// A `state` event: a `StateChange` naming `types` of `accountID` at `state`, with the state as the event id
    /// (what a reconnecting client sends back as `Last-Event-ID`).
    static func state(accountID: String, types: [String], state: Int64) -> [UInt8] {
        let text = String(state)
        let change: JSONValue = .object([
            ("@type", "StateChange"),
            ("changed", .object([(accountID, .object(types.map { ($0, .string(text)) }))])),
        ])
        return Array("event: state\nid: \(text)\ndata: ".utf8) + change.serialize() + Array("\n\n".utf8)
    }

    /// A `ping` event: `{"interval":N}`, the interval in use; it carries no id, so the last id stays.
    static func ping(interval: Int) -> [UInt8] {
        Array("event: ping\ndata: {\"interval\":\(interval)}\n\n".utf8)
    }
}
