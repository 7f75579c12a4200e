import ClientAddress

/// What a request presents to prove who it acts as: its bearer token and the headers that may qualify it (an
/// account id header next to an owner's token, say). Built by the HTTP surface; never logged.
public struct Credentials: Sendable {
    /// The `Authorization: Bearer` token.
    public let bearerToken: String
    let headers: [(name: String, value: String)]
    /// The client's address, as the request context resolves it (trusted proxies honoured); nil when the peer is not
    /// an address or the door does not say. What an audit line of the token's use names.
    public let client: IPAddress?

    /// - Parameters:
    ///   - bearerToken: the bearer token.
    ///   - headers: the request's header fields, as received.
    ///   - client: the client's address (``client``).
    public init(bearerToken: String, headers: [(name: String, value: String)] = [], client: IPAddress? = nil) {
        self.bearerToken = bearerToken
        self.headers = headers
        self.client = client
    }

    /// The first value of header `name` (any case), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
