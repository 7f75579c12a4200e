import AuthCrypto
import DNS
import EmailAddresses
import Foundation
import Storage

/// Custom domains, one model for every surface (`custom_domain_claims`, migration 0033): owners' domains for agent
/// inboxes and Mail.td Pro users' domains are claims in one table, so one domain has at most one verified holder by
/// construction (a partial unique index over verified claims decides a race, whichever surfaces race) and the rules
/// live here once:
/// - a claim is proven only by its own TXT token at the apex; an MX naming this server is routing, never proof;
/// - pending claims block nobody: several holders may claim one domain, the first to verify wins and the other
///   pending claims are deleted; a claim pending longer than ``verificationWindow`` is deleted;
/// - a claim is not deleted while its holder still has mailboxes on the domain (``DomainClaimError/inUse``);
/// - no surface makes a mailbox at an address another surface still has (``isAddressHeldElsewhere(_:than:)``).
///
/// Each surface keeps its own rule that an address on a custom domain is local only while its holder holds the
/// domain verified, by asking ``verifiedClaim(on:)`` for the holder. No other target reads or writes the table.
///
/// A claimed domain's outbound mail is signed (DKIM): with ``DomainSigningKeys`` given,
/// ``add(_:for:limit:served:now:)`` makes the domain's keys, and ``signingKeyRecords(on:)`` and ``checkSigningKeyRecords(on:resolver:)`` give the
/// `_domainkey` TXT records each surface shows beside the claim's TXT and MX, and whether they are published.
public struct CustomDomains: Sendable {
    let database: any SQLDatabase
    let mailboxes: [any CustomDomainMailboxes]
    /// The domains' DKIM keys; nil: no keys are made and no `_domainkey` records shown (a reader of claims only).
    let signingKeys: (any DomainSigningKeys)?
    /// Seconds a claim may stay pending before it is deleted.
    public let verificationWindow: Int64

    /// 7 days in seconds, as Mail.td Pro domains.
    public static let defaultVerificationWindow: Int64 = 7 * 24 * 3600

    /// - Parameters:
    ///   - database: the database holding `custom_domain_claims`.
    ///   - mailboxes: every surface's mailboxes on custom domains (asked before a delete and before a mailbox is
    ///     made); a surface not listed is taken to have none.
    ///   - verificationWindow: seconds a claim may stay pending.
    ///   - signingKeys: the domains' DKIM keys, made when a domain is claimed and shown as TXT records; nil for a
    ///     reader of claims (the directories) that makes and shows none.
    public init(
        database: any SQLDatabase, mailboxes: [any CustomDomainMailboxes] = [],
        verificationWindow: Int64 = Self.defaultVerificationWindow, signingKeys: (any DomainSigningKeys)? = nil
    ) {
        self.database = database
        self.mailboxes = mailboxes
        self.signingKeys = signingKeys
        self.verificationWindow = verificationWindow
    }

    /// The verified claim on `domain` (any ASCII case, or its Unicode form: ``EmailDomain/key(_:)``), whoever holds
    /// it, or nil.
    /// - Throws: storage errors.
    public func verifiedClaim(on domain: String) async throws -> DomainClaim? {
        let domain = EmailDomain.key(domain)
        return try await database.read { connection in try DomainClaimRows.verified(domain, connection) }
    }

    /// The holder's claim `id`, whatever its state; nil when there is none (another holder's is nil too).
    /// - Throws: storage errors.
    public func claim(id: String, of holder: DomainHolder) async throws -> DomainClaim? {
        try await database.read { connection in try DomainClaimRows.claim(id: id, of: holder, connection) }
    }

    /// The holder's claims, oldest first; its claims pending past the window at `now` are deleted first.
    /// - Throws: storage errors.
    public func claims(of holder: DomainHolder, now: Int64) async throws -> [DomainClaim] {
        let lapsed = now - verificationWindow
        return try await database.write { connection in
            try DomainClaimRows.deleteLapsed(of: holder, before: lapsed, connection)
            return try DomainClaimRows.claims(of: holder, connection)
        }
    }

    /// How many claims the holder has, pending or verified.
    /// - Throws: storage errors.
    public func count(of holder: DomainHolder) async throws -> Int64 {
        try await database.read { connection in try DomainClaimRows.count(of: holder, connection) }
    }

    /// Claims `name` for `holder`, pending, with a new TXT token. In one write transaction: claims pending past the
    /// window on this domain or of this holder are deleted, the domain is refused when anyone holds it verified or the
    /// holder claims it already, and the holder's count is checked. Other holders' pending claims do not stand in the
    /// way. Once the claim is stored, the domain's DKIM keys are made (``DomainSigningKeys``; kept when it has them),
    /// so that its `_domainkey` records can be published with the TXT token; keys that cannot be made then throw
    /// here, and are made by the next ``signingKeyRecords(on:)`` (the claim stays).
    /// - Parameters:
    ///   - served: domains this server serves itself (lower-cased): nobody may claim them.
    ///   - limit: most claims the holder may have.
    /// - Throws: ``DomainClaimError/invalidDomain``, ``DomainClaimError/taken``, ``DomainClaimError/limitReached``;
    ///   storage errors; the signing keys' errors.
    public func add(
        _ name: String, for holder: DomainHolder, limit: Int64, served: Set<String>, now: Int64
    ) async throws -> DomainClaim {
        guard let domain = DomainName.normalized(name), domain.contains(".") else {
            throw DomainClaimError.invalidDomain
        }
        guard !served.contains(domain) else { throw DomainClaimError.taken }
        let claim = DomainClaim(
            id: UUID().uuidString.lowercased(), holder: holder, domain: domain,
            verifyToken: "postern-verify-" + SecureRandom.hex(byteCount: 12), verifiedAt: nil, mxConfigured: false,
            createdAt: now)
        let lapsed = now - verificationWindow
        do {
            try await database.write { connection in
                try connection.transaction {
                    try DomainClaimRows.deleteLapsed(of: holder, orOn: domain, before: lapsed, connection)
                    guard try !DomainClaimRows.isTaken(domain, for: holder, connection) else {
                        throw DomainClaimError.taken
                    }
                    guard try DomainClaimRows.count(of: holder, connection) < limit else {
                        throw DomainClaimError.limitReached
                    }
                    try DomainClaimRows.insert(claim, connection)
                }
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw DomainClaimError.taken
        }
        _ = try await signingKeys?.records(for: domain)
        return claim
    }

    /// Looks the records of the holder's claim `id` up now and keeps the result: verified when the TXT holds the
    /// claim's own token, verified for good once it was; `mxConfigured` follows every check. Verifying deletes every
    /// other pending claim on the domain, on either surface, in the same transaction. A lookup without an answer
    /// leaves the claim pending, with the reason in the check's message. Nil when the holder has no such claim.
    /// - Throws: ``DomainClaimError/expired`` for a claim pending past the window at `now` (deleted now);
    ///   ``DomainClaimError/taken`` when another claim was verified first (this one is deleted); storage errors.
    public func verify(
        id: String, of holder: DomainHolder, now: Int64, resolver: DNSResolver, mxHost: String
    ) async throws -> (claim: DomainClaim, check: DomainOwnershipCheck)? {
        guard var claim = try await claim(id: id, of: holder) else { return nil }
        if !claim.isVerified, now - claim.createdAt > verificationWindow {
            try await remove(id: claim.id)
            throw DomainClaimError.expired
        }
        let check = await DomainOwnershipCheck.run(
            domain: claim.domain, token: claim.verifyToken, mxHost: mxHost, resolver: resolver)
        claim.mxConfigured = check.mxFound
        guard !claim.isVerified, check.txtFound else {
            _ = try await database.write { connection in
                try DomainClaimRows.setMX(id: id, check.mxFound, connection)
            }
            return (claim, check)
        }
        let proven = claim
        do {
            // The partial unique index over verified claims decides a race, whichever surfaces race; a claim another
            // verify deleted meanwhile (it was pending when that one won) is taken too.
            claim.verifiedAt = try await database.write { connection in
                try connection.transaction {
                    if try DomainClaimRows.markVerified(proven, at: now, connection) {
                        try DomainClaimRows.deletePending(on: proven.domain, connection)
                        return now
                    }
                    guard let current = try DomainClaimRows.claim(id: proven.id, of: holder, connection),
                        let verifiedAt = current.verifiedAt
                    else { throw DomainClaimError.taken }
                    return verifiedAt
                }
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            try await remove(id: claim.id)
            throw DomainClaimError.taken
        }
        return (claim, check)
    }

    /// Deletes the holder's claim `id` unless the holder still has mailboxes on its domain (asked of the holder's
    /// surface in the same transaction); returns the deleted claim, nil when there was none.
    /// - Throws: ``DomainClaimError/inUse`` while mailboxes remain; storage errors.
    public func delete(id: String, of holder: DomainHolder) async throws -> DomainClaim? {
        let own = mailboxes.filter { $0.holderKind == holder.kind }
        return try await database.write { connection in
            try connection.transaction {
                guard let claim = try DomainClaimRows.claim(id: id, of: holder, connection) else { return nil }
                for surface in own
                where try surface.hasMailboxes(holderID: holder.id, on: claim.domain, connection: connection) {
                    throw DomainClaimError.inUse
                }
                try DomainClaimRows.delete(id: id, connection)
                return claim
            }
        }
    }

    /// Whether a surface other than the holder's has a mailbox at `address` (left from an earlier holder of its
    /// domain): the holder must not make a second mailbox at it, which would read that one's mail.
    /// - Throws: storage errors.
    public func isAddressHeldElsewhere(_ address: String, than holder: DomainHolder) async throws -> Bool {
        let address = EmailAddress.key(address)
        for surface in mailboxes where surface.holderKind != holder.kind {
            if try await surface.hasMailbox(at: address) { return true }
        }
        return false
    }

    /// Deletes every claim pending longer than `window` seconds at `now` (the owners' purge); returns how many went.
    /// - Throws: storage errors.
    public static func purgeLapsed(_ connection: any SQLConnection, now: Int64, window: Int64) throws -> Int {
        try DomainClaimRows.deleteLapsed(before: now - window, connection)
    }

    /// Every domain some claim names, pending or verified (lower-cased, as claims keep them): what still holds a
    /// domain's DKIM keys (`DKIMKeyPurge`).
    /// - Throws: storage errors.
    public static func claimedDomains(_ connection: any SQLConnection) throws -> Set<String> {
        let rows = try connection.query("SELECT DISTINCT domain FROM custom_domain_claims", [])
        return Set(rows.compactMap { $0.text("domain") })
    }

    private func remove(id: String) async throws {
        _ = try await database.write { connection in try DomainClaimRows.delete(id: id, connection) }
    }
}
