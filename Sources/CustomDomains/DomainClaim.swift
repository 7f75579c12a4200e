/// One claim on a custom domain: pending until a check finds the claim's own TXT token at the apex, verified from
/// then on. An MX naming this server is routing, never proof: it is the same for every holder.
public struct DomainClaim: Sendable, Equatable {
    /// The claim's id (a lowercase UUID), the id each surface shows for the domain.
    public let id: String
    public let holder: DomainHolder
    /// Lower-cased, no trailing dot.
    public let domain: String
    /// The value of the TXT record that proves control of the zone.
    public let verifyToken: String
    /// When a check first passed, Unix seconds; nil while pending (the claim's state).
    public var verifiedAt: Int64?
    /// Whether the last check saw an MX naming this server (mail for the domain reaches it).
    public var mxConfigured: Bool
    /// When the claim was made, Unix seconds.
    public let createdAt: Int64
    /// What the last check of every record found (``CustomDomains/checkRecords(_:check:resolver:now:)``); nil before
    /// the first.
    public var recordStates: DomainRecordStates?

    public init(
        id: String, holder: DomainHolder, domain: String, verifyToken: String, verifiedAt: Int64?,
        mxConfigured: Bool, createdAt: Int64, recordStates: DomainRecordStates? = nil
    ) {
        self.id = id
        self.holder = holder
        self.domain = domain
        self.verifyToken = verifyToken
        self.verifiedAt = verifiedAt
        self.mxConfigured = mxConfigured
        self.createdAt = createdAt
        self.recordStates = recordStates
    }

    /// Whether a check has proven the claim.
    public var isVerified: Bool { verifiedAt != nil }
}
