import CustomDomains

/// A domain an owner added to put agent inboxes on (Atomic custom domains): pending until a check finds this claim's
/// own TXT token at its apex, verified from then on. An MX naming this server is routing, never proof: it is the same
/// for every tenant.
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

    /// The owner's view of `claim`, an owner's claim.
    init(_ claim: DomainClaim) {
        self.init(
            id: claim.id, ownerID: claim.holder.id, domain: claim.domain, verifyToken: claim.verifyToken,
            verifiedAt: claim.verifiedAt, mxConfigured: claim.mxConfigured, createdAt: claim.createdAt)
    }
}

/// Why a domain could not be added, verified or deleted: the custom domains' own errors. ``DomainClaimError/taken``
/// when another owner or a Mail.td Pro user holds it verified, this server serves it itself (agent or mailbox
/// domains), or the owner has a claim on it already; ``DomainClaimError/limitReached`` past
/// ``OwnerDomains/limit``; ``DomainClaimError/expired`` for a claim pending past
/// ``OwnerDomains/verificationWindow``; ``DomainClaimError/inUse`` while inboxes are still on the domain.
public typealias OwnerDomainError = DomainClaimError
