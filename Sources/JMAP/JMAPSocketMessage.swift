import JSON
import WebSocket

/// What a client sends over JMAP's WebSocket (RFC 8887 section 4.3), read from one message; pure, so tests give it
/// strings.
///
/// The rules, in order (each failure a ``JMAPSocketError`` the socket answers with a `RequestError` and stays open):
/// 1. a binary message, or text longer than `maxSizeRequest`: `limit` (`maxSizeRequest`) for the size, `notJSON` for
///    binary (section 4.2: every JMAP message is a text frame);
/// 2. not I-JSON: `notJSON`;
/// 3. not an object, or `@type` missing or none of `Request`, `WebSocketPushEnable`, `WebSocketPushDisable`:
///    `notRequest`;
/// 4. `Request`: `id`, when present, a string (it is echoed as `requestId`); the rest is checked by
///    `JMAPService.run` as `POST /jmap/api` checks it;
/// 5. `WebSocketPushEnable`: `dataTypes` null (every type) or a list of strings, `pushState` absent, null or a
///    string.
///
/// Every error carries the message's `id` as `requestId` when the message is an object with a string `id`, else null
/// (section 4.3.4, and the `notJSON` example of section 4.4).
enum JMAPSocketMessage: Sendable, Equatable {
    /// A `Request` (RFC 8620 section 3.3 with `@type` and an optional `id`); `envelope` is the whole object.
    case request(id: String?, envelope: JSONValue)
    /// `WebSocketPushEnable`: push `StateChange`s for `dataTypes` (nil: every type), from `pushState` when given.
    case pushEnable(dataTypes: [String]?, pushState: String?)
    /// `WebSocketPushDisable`: stop pushing.
    case pushDisable

    /// Reads `message` under `maxSizeRequest` bytes.
    static func read(_ message: WebSocketMessage, maxSizeRequest: Int) -> Result<JMAPSocketMessage, JMAPSocketError> {
        guard case .text(let text) = message else {
            return .failure(JMAPSocketError(requestID: nil, error: .notJSON))
        }
        let bytes = Array(text.utf8)
        guard bytes.count <= maxSizeRequest else {
            return .failure(
                JMAPSocketError(
                    requestID: nil, error: .limit("maxSizeRequest", "A request is at most \(maxSizeRequest) bytes.")))
        }
        guard let value = try? JSONValue.parse(bytes, limits: .requestBody(maximumBytes: maxSizeRequest)) else {
            return .failure(JMAPSocketError(requestID: nil, error: .notJSON))
        }
        let id = value["id"]?.stringValue
        func notRequest(_ detail: String) -> Result<JMAPSocketMessage, JMAPSocketError> {
            .failure(JMAPSocketError(requestID: id, error: .notRequest(detail)))
        }
        guard value.objectValue != nil else { return notRequest("A message is a JSON object with an `@type`.") }
        switch value["@type"]?.stringValue {
        case "Request":
            if let given = value["id"], given.stringValue == nil { return notRequest("A Request's `id` is a string.") }
            return .success(.request(id: id, envelope: value))
        case "WebSocketPushEnable":
            var types: [String]?
            if let given = value["dataTypes"], given != .null {
                guard let list = given.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                    return notRequest("`dataTypes` is null or a list of type names.")
                }
                types = list.compactMap(\.stringValue)
            }
            var pushState: String?
            if let given = value["pushState"], given != .null {
                guard let state = given.stringValue else { return notRequest("`pushState` is a string.") }
                pushState = state
            }
            return .success(.pushEnable(dataTypes: types, pushState: pushState))
        case "WebSocketPushDisable":
            return .success(.pushDisable)
        default:
            return notRequest(
                "`@type` must be Request, WebSocketPushEnable or WebSocketPushDisable (RFC 8887 section 4.3).")
        }
    }

    /// The `id` a `RequestError` answering `message` carries: the message's string `id`, when it has one.
    static func requestID(of message: WebSocketMessage, maxSizeRequest: Int) -> String? {
        switch read(message, maxSizeRequest: maxSizeRequest) {
        case .success(.request(let id, _)): return id
        case .success: return nil
        case .failure(let error): return error.requestID
        }
    }

    /// The `Response` (section 4.3.3) of a request whose response object is `response`: `@type`, `requestId` when
    /// the request had an `id`, then the response's members.
    static func response(_ response: JSONValue, requestID: String?) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("@type", "Response")]
        if let requestID { pairs.append(("requestId", .string(requestID))) }
        return .object(pairs + (response.objectValue ?? []))
    }
}

/// A `RequestError` (RFC 8887 section 4.3.4): a request-level error (RFC 8620 section 3.6.1) sent over the socket
/// instead of a `Response`, with the request's `id` as `requestId` (null when there was none to read).
struct JMAPSocketError: Error, Sendable, Equatable {
    /// The `id` of the message it answers, when it had a string one.
    let requestID: String?
    /// The problem: its type, status, detail and limit are the HTTP binding's.
    let error: RequestError

    /// The object sent.
    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("@type", "RequestError"), ("requestId", requestID.map(JSONValue.string) ?? .null),
            ("type", .string(error.type)), ("status", .int(Int64(error.status.code))), ("detail", .string(error.detail)),
        ]
        if let limit = error.limit { pairs.append(("limit", .string(limit))) }
        return .object(pairs)
    }
}
