import JSON

/// Who acts in a delegated token (RFC 8693 section 4.1, the `act` claim): the current actor first, then the actor
/// before it, and so on. `act: {"sub": "B", "act": {"sub": "A"}}` is the chain `["B", "A"]`: client B acts, for
/// a token client A held acting for the owner (a sub-agent). Each member is a client id of this server.
public struct OAuthActorChain: Sendable, Equatable {
    /// The longest chain read from a token (deeper is malformed whatever the configured limit).
    public static let maximumReadDepth = 16

    /// The actors' client ids, the current one first; never empty.
    public let clientIDs: [String]

    /// A chain of `clientIDs`, the current actor first; nil when empty.
    public init?(_ clientIDs: [String]) {
        guard !clientIDs.isEmpty else { return nil }
        self.clientIDs = clientIDs
    }

    /// The current actor: the client the token was exchanged for.
    public var current: String { clientIDs[0] }

    /// How many actors the chain holds (1 for an agent acting for its owner, 2 for its sub-agent).
    public var depth: Int { clientIDs.count }

    /// The chain with `clientID` acting on top of this one.
    public func acting(_ clientID: String) -> OAuthActorChain {
        OAuthActorChain(unchecked: [clientID] + clientIDs)
    }

    private init(unchecked clientIDs: [String]) {
        self.clientIDs = clientIDs
    }

    /// The `act` claim: `{"sub": current, "act": {...}}`, nested from the current actor inwards.
    public var claim: JSONValue {
        var value: JSONValue? = nil
        for clientID in clientIDs.reversed() {
            var members: [(String, JSONValue)] = [("sub", .string(clientID))]
            if let inner = value { members.append(("act", inner)) }
            value = .object(members)
        }
        return value ?? .null
    }

    /// Reads an `act` claim; nil when it is not an object with a string `sub` at every level, or is deeper than
    /// ``maximumReadDepth``. Members other than `sub` and `act` are ignored (RFC 8693 allows them; this server
    /// writes none).
    public init?(claim: JSONValue) {
        var ids: [String] = []
        var level: JSONValue? = claim
        while let current = level {
            guard current.objectValue != nil, let sub = current["sub"]?.stringValue, !sub.isEmpty,
                ids.count < Self.maximumReadDepth
            else { return nil }
            ids.append(sub)
            level = current["act"]
        }
        self.init(ids)
    }

    /// The chain as stored (`oauth_delegated_tokens.act_chain`): the client ids separated by spaces, current first
    /// (client ids hold no spaces).
    public var stored: String { clientIDs.joined(separator: " ") }

    /// A chain as stored; nil for an empty text.
    public init?(stored: String) {
        self.init(stored.split(separator: " ").map(String.init))
    }
}
