/// A domain an owner added to put agent inboxes on (Atomic custom domains): pending until a check finds the TXT token
/// or an MX naming this server at its apex, verified from then on.
public struct OwnerDomain: Sendable, Equatable {
    public let id: String
    public let ownerID: String
    /// Lower-cased, no trailing dot.
    public let domain: String
    /// The value of the TXT record that proves control of the zone.
    public let verifyToken: String
    /// When a check first passed, Unix seconds; nil while pending.
    public var verifiedAt: Int64?
    /// Whether the last check saw an MX naming this server (mail for the domain reaches it).
    public var mxConfigured: Bool
    public let createdAt: Int64

    public init(
        id: String, ownerID: String, domain: String, verifyToken: String, verifiedAt: Int64?, mxConfigured: Bool,
        createdAt: Int64
    ) {
        self.id = id
        self.ownerID = ownerID
        self.domain = domain
        self.verifyToken = verifyToken
        self.verifiedAt = verifiedAt
        self.mxConfigured = mxConfigured
        self.createdAt = createdAt
    }
}

/// Why a domain could not be added.
public enum OwnerDomainError: Error, Equatable, Sendable {
    /// Not a domain name (DNS syntax, at least two labels).
    case invalidDomain
    /// Another owner has it, or this server serves it itself (agent or mailbox domains).
    case taken
    /// The owner has ``OwnerDomains/limit`` domains already.
    case limitReached
}
