import JSON

/// A method-level error (RFC 8620 section 3.6.2), answered as `["error", {"type", "description"}, callId]`.
struct MethodError: Error, Sendable, Equatable {
    let type: String
    let description: String?
    var extra: [(String, JSONValue)] = []

    init(_ type: String, _ description: String? = nil) {
        self.type = type
        self.description = description
    }

    static func invalidArguments(_ description: String) -> MethodError { MethodError("invalidArguments", description) }
    static let accountNotFound = MethodError("accountNotFound", "The accountId is not an account of this token.")
    static let responseTooLarge = MethodError(
        "requestTooLarge",
        "The answer would pass the server's response size limit (maxSizeResponse); ask for fewer objects or less data.")
    static let serverFail = MethodError("serverFail", "The server could not complete the method; try again.")
    /// RFC 8620 3.6.2: the database could not answer now or could not confirm a write (``ServiceFailure/unavailable``);
    /// the same call may succeed later (a write it made may then be found done).
    static let serverUnavailable = MethodError(
        "serverUnavailable", "The database is unavailable or could not confirm the write; try again after a pause.")
    static func unknownMethod(_ name: String) -> MethodError {
        MethodError("unknownMethod", "\(name) is not a method this server has, or its capability is not in `using`.")
    }

    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("type", .string(type))]
        if let description { pairs.append(("description", .string(description))) }
        return .object(pairs + extra)
    }

    static func == (lhs: MethodError, rhs: MethodError) -> Bool {
        lhs.type == rhs.type && lhs.description == rhs.description
    }
}
