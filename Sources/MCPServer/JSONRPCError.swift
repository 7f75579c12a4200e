import JSON

/// A JSON-RPC 2.0 error the server answers with: its code, a sentence for the client (never internals), and the id of
/// the request it answers (null when none could be read).
public struct JSONRPCError: Error, Sendable, Equatable {
    /// The error codes of JSON-RPC 2.0 and the one MCP hosts know for a missing session.
    public enum Code: Int64, Sendable {
        case parseError = -32700
        case invalidRequest = -32600
        case methodNotFound = -32601
        case invalidParams = -32602
        case internalError = -32603
        /// A session id the server does not know (expired, closed, or another credential's).
        case sessionNotFound = -32001
    }

    public let code: Code
    public let message: String
    public var id: JSONValue

    /// - Parameters:
    ///   - code: the error code.
    ///   - message: what went wrong, for the client.
    ///   - id: the request's id; null when unknown.
    public init(_ code: Code, _ message: String, id: JSONValue = .null) {
        self.code = code
        self.message = message
        self.id = id
    }

    /// The error response object.
    public var response: JSONValue {
        .object([
            ("jsonrpc", "2.0"), ("id", id),
            ("error", .object([("code", .int(code.rawValue)), ("message", .string(message))])),
        ])
    }

    public static func == (lhs: JSONRPCError, rhs: JSONRPCError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.id == rhs.id
    }
}
