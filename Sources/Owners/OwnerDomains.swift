import CustomDomains
import DNS
import EmailAddresses
import Storage

/// Owners' custom domains: add, check by DNS, list, delete, as claims held by owners in ``CustomDomains`` (one table
/// with Mail.td's Pro domains, migration 0033). One check mechanism with Mail.td (`DomainOwnershipCheck`): this
/// claim's own TXT token at the apex proves control of the zone; an MX there naming `mxHost` is routing only. Pending
/// claims block nobody: several owners (and Pro users) may claim one domain, the first to verify wins and the others
/// are deleted, and a claim pending longer than ``verificationWindow`` is deleted.
public struct OwnerDomains: Sendable {
    let claims: CustomDomains
    let resolver: DNSResolver
    /// The host an MX must name (`POSTERN_MX_HOST`).
    public let mxHost: String
    /// Domains this server serves itself (agent and mailbox domains): nobody may add them.
    let served: Set<String>
    /// Most domains one owner may add.
    public let limit: Int
    let clock: @Sendable () -> Int64

    /// Seconds a claim may stay pending before it is deleted.
    public var verificationWindow: Int64 { claims.verificationWindow }

    /// - Parameters:
    ///   - claims: the custom domains of every surface (the runtime's one): its mailboxes (the owners' agent inboxes,
    ///     Mail.td's accounts) keep a domain from being deleted while the owner's inboxes are on it and an inbox from
    ///     being made at an address another surface has; its DKIM keys are made when a domain is added and shown as
    ///     `_domainkey` records.
    ///   - resolver: the DNS resolver domain checks look records up with (the runtime's one).
    public init(
        claims: CustomDomains, resolver: DNSResolver, mxHost: String, served: [String], limit: Int,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.claims = claims
        self.resolver = resolver
        self.mxHost = mxHost
        self.served = Set(served.map { EmailDomain.key($0) })
        self.limit = limit
        self.clock = clock
    }

    /// The owner's domains, oldest first; the owner's claims pending past the window are deleted first.
    public func domains(ownerID: String) async throws -> [DomainClaim] {
        try await claims.claims(of: .owner(ownerID), now: clock())
    }

    /// The owner's verified domain named `name`, if any.
    public func verified(_ name: String, ownerID: String) async throws -> DomainClaim? {
        guard let claim = try await claims.verifiedClaim(on: name), claim.holder == .owner(ownerID) else { return nil }
        return claim
    }

    /// Adds `name` for `ownerID`, pending, and makes its DKIM keys. Other owners' and Pro users' pending claims on it
    /// do not stand in the way.
    /// - Throws: ``OwnerDomainError``: ``OwnerDomainError/taken`` when someone holds it verified (here or as a
    ///   Mail.td Pro domain), this server serves it, or the owner claims it already; storage errors.
    public func add(_ name: String, ownerID: String) async throws -> DomainClaim {
        try await claims.add(name, for: .owner(ownerID), limit: Int64(limit), served: served, now: clock())
    }

    /// Looks the records of the owner's domain `id` up now and keeps the result: verified when the TXT holds this
    /// claim's own token (an MX naming this server proves nothing: it is every tenant's), verified for good once it
    /// was; `mxConfigured` follows every check. The first claim to verify wins: the other pending claims on the domain,
    /// owners' and Pro users', are deleted. Nil when the owner has no such domain. A lookup without an answer leaves
    /// the domain pending, with the reason in the check's message.
    /// - Throws: ``OwnerDomainError/expired`` for a claim pending past the window (deleted now);
    ///   ``OwnerDomainError/taken`` when someone else verified the domain first (this claim is deleted); storage
    ///   errors.
    public func verify(id: String, ownerID: String) async throws
        -> (domain: DomainClaim, check: DomainOwnershipCheck)?
    {
        try await claims.verify(id: id, of: .owner(ownerID), now: clock(), resolver: resolver, mxHost: mxHost)
            .map { ($0.claim, $0.check) }
    }

    /// The `_domainkey` TXT records `domain` publishes for the keys its outbound mail is signed with (made first when
    /// it has none); empty without signing keys.
    /// - Throws: the signing keys' errors.
    public func signingKeyRecords(_ domain: DomainClaim) async throws -> [SigningKeyRecord] {
        try await claims.signingKeyRecords(on: domain.domain)
    }

    /// Looks up every other record `domain` publishes (DKIM, SPF, DMARC) and keeps, with the check's TXT and MX, what
    /// each lookup found: the page shows each row's last state from then on. Never a condition of verification.
    /// - Throws: the signing keys' errors, storage errors.
    public func checkRecords(_ domain: DomainClaim, check: DomainOwnershipCheck) async throws -> DomainRecordStates {
        try await claims.checkRecords(domain, check: check, resolver: resolver, now: clock()).states
    }

    /// Deletes the owner's domain `id`. False when there is none.
    /// - Throws: ``OwnerDomainError/inUse`` while the owner has inboxes on it (they are local only while their owner
    ///   holds the domain verified); storage errors.
    public func delete(id: String, ownerID: String) async throws -> Bool {
        try await claims.delete(id: id, of: .owner(ownerID)) != nil
    }

    /// The owner's domain `id`, whatever its state.
    public func domain(id: String, ownerID: String) async throws -> DomainClaim? {
        try await claims.claim(id: id, of: .owner(ownerID))
    }

    /// Whether another surface (Mail.td) has a mailbox at `address`, left from an earlier holder of its domain: the
    /// owner makes no inbox at it, which would read that mailbox's mail.
    public func isAddressHeldElsewhere(_ address: String, ownerID: String) async throws -> Bool {
        try await claims.isAddressHeldElsewhere(address, than: .owner(ownerID))
    }

    /// Deletes every claim pending longer than `window` seconds at `now` (``OwnerPurge``); returns how many went.
    static func purgeLapsed(_ connection: any SQLConnection, now: Int64, window: Int64) throws -> Int {
        try CustomDomains.purgeLapsed(connection, now: now, window: window)
    }
}
