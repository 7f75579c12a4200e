/// Who acts for whom with a delegated access token (one minted by token exchange, RFC 8693): the owner the token is
/// for (`sub`) and the chain of agent clients acting for them (`act`), the current actor first. The resource side
/// fills it from a verified token whose grant row names the same chain; the doors carry it to their audit lines, so
/// that what an agent did for its owner is never written as the owner's own act.
public struct Delegation: Sendable, Equatable {
    /// The owner the token acts for (`sub`).
    public let ownerID: String
    /// The acting clients' ids, the current actor first (`act.sub`, then `act.act.sub`, ...); never empty.
    public let actorIDs: [String]

    /// A delegation of `ownerID` to `actorIDs` (current first); nil when `actorIDs` is empty.
    public init?(ownerID: String, actorIDs: [String]) {
        guard !actorIDs.isEmpty else { return nil }
        self.ownerID = ownerID
        self.actorIDs = actorIDs
    }

    /// The client that acted: the current actor.
    public var actor: String { actorIDs[0] }

    /// The chain as the audit trail's details write it: the client ids separated by spaces, current first (the same
    /// text as the token exchange's own audit line; client ids hold no spaces).
    public var chain: String { actorIDs.joined(separator: " ") }
}
