/// What a request presents to prove who it acts as: its bearer token and the headers that may qualify it (an
/// account id header next to an owner's token, say). Built by the HTTP surface; never logged.
public struct Credentials: Sendable {
    /// The `Authorization: Bearer` token.
    public let bearerToken: String
    let headers: [(name: String, value: String)]

    /// - Parameters:
    ///   - bearerToken: the bearer token.
    ///   - headers: the request's header fields, as received.
    public init(bearerToken: String, headers: [(name: String, value: String)] = []) {
        self.bearerToken = bearerToken
        self.headers = headers
    }

    /// The first value of header `name` (any case), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
