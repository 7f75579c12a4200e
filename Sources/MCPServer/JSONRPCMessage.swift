import JSON

/// One JSON-RPC 2.0 message as an MCP client posts it (Streamable HTTP sends one per POST): parsed from bytes,
/// with no I/O, so that every malformed body maps to the JSON-RPC error the client is owed.
public enum JSONRPCMessage: Sendable {
    /// A request: it has an `id` (a string or an integer, never null in MCP) and expects one response.
    case request(id: JSONValue, method: String, params: [(String, JSONValue)])
    /// A notification: no `id`, no response.
    case notification(method: String)
    /// The client's response to a request of the server's (this server sends none, so it is only accepted).
    case response

    /// Parses one message.
    /// - Parameters:
    ///   - bytes: the POST body.
    ///   - maximumBytes: the most the body may hold.
    /// - Throws: ``JSONRPCError`` `parseError` for bytes that are not JSON, `invalidRequest` for JSON that is not one
    ///   JSON-RPC 2.0 message (batches included: MCP since 2025-06-18 has none); its `id` is the message's when
    ///   one could be read.
    public static func parse(_ bytes: [UInt8], maximumBytes: Int) throws(JSONRPCError) -> JSONRPCMessage {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, limits: .requestBody(maximumBytes: maximumBytes))
        } catch {
            throw JSONRPCError(.parseError, "The body is not JSON: \(error.reason).")
        }
        guard value.objectValue != nil else {
            throw JSONRPCError(
                .invalidRequest,
                value.arrayValue != nil
                    ? "Batches are not supported: send one JSON-RPC message per POST."
                    : "The body must be a JSON-RPC 2.0 message object.")
        }
        let id = value["id"]
        let usableID: JSONValue = id.flatMap { $0.stringValue != nil || $0.intValue != nil ? $0 : nil } ?? .null
        guard value["jsonrpc"]?.stringValue == "2.0" else {
            throw JSONRPCError(.invalidRequest, "`jsonrpc` must be \"2.0\".", id: usableID)
        }
        guard let methodValue = value["method"] else {
            if id != nil, value["result"] != nil || value["error"] != nil { return .response }
            throw JSONRPCError(.invalidRequest, "A request needs a `method`.", id: usableID)
        }
        guard let method = methodValue.stringValue, !method.isEmpty else {
            throw JSONRPCError(.invalidRequest, "`method` must be a non-empty string.", id: usableID)
        }
        var params: [(String, JSONValue)] = []
        if let given = value["params"], given != .null {
            guard let object = given.objectValue else {
                throw JSONRPCError(.invalidRequest, "`params` must be an object.", id: usableID)
            }
            params = object
        }
        guard id != nil else { return .notification(method: method) }
        guard usableID != .null else {
            throw JSONRPCError(.invalidRequest, "`id` must be a string or an integer.")
        }
        return .request(id: usableID, method: method, params: params)
    }

    /// The success response to request `id`.
    public static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object([("jsonrpc", "2.0"), ("id", id), ("result", result)])
    }
}
