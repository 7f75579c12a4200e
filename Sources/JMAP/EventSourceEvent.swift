import JSON

/// The `text/event-stream` events of the JMAP event source (RFC 8620 section 7.3), as bytes.
enum EventSourceEvent {
    /// A `state` event: a `StateChange` naming each of `changed` (a type and its new state) of `accountID`, with `id`
    /// as the event id (what a reconnecting client sends back as `Last-Event-ID`).
    static func state(accountID: String, changed: [(type: String, state: String)], id: String) -> [UInt8] {
        let change = stateChange(accountID: accountID, changed: changed, pushState: nil)
        return Array("event: state\nid: \(id)\ndata: ".utf8) + change.serialize() + Array("\n\n".utf8)
    }

    /// A `StateChange` object (RFC 8620 section 7.1) naming each of `changed` (a type and its new state) of
    /// `accountID`, with RFC 8887's `pushState` (section 4.3.5.1) when given: what the event source sends as an
    /// event's data, and JMAP's WebSocket as a message.
    static func stateChange(accountID: String, changed: [(type: String, state: String)], pushState: String?) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("@type", "StateChange"),
            ("changed", .object([(accountID, .object(changed.map { ($0.type, .string($0.state)) }))])),
        ]
        if let pushState { pairs.append(("pushState", .string(pushState))) }
        return .object(pairs)
    }

    /// A `ping` event: `{"interval":N}`, the interval in use; it carries no id, so the last id stays.
    static func ping(interval: Int) -> [UInt8] {
        Array("event: ping\ndata: {\"interval\":\(interval)}\n\n".utf8)
    }
}
