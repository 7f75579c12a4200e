import AuthCrypto
import DNS
import Directory
import Foundation
import Storage

/// Owners' custom domains (`owner_domains`, migrations 0020 and 0024): add, check by DNS, list, delete. One check
/// mechanism with Mail.td's Pro domains (`DomainOwnershipCheck`): this claim's own TXT token at the apex proves
/// control of the zone; an MX there naming `mxHost` is routing only. Pending claims block nobody: several owners (and
/// Pro users) may claim one domain, the first to verify wins and the others are deleted, and a claim pending longer
/// than ``verificationWindow`` is deleted.
public struct OwnerDomains: Sendable {
    let database: any SQLDatabase
    let resolver: DNSResolver
    /// The host an MX must name (`POSTERN_MX_HOST`).
    public let mxHost: String
    /// Domains this server serves itself (agent and mailbox domains): nobody may add them.
    let served: Set<String>
    /// Most domains one owner may add.
    public let limit: Int
    /// Seconds a claim may stay pending before it is deleted.
    public let verificationWindow: Int64
    /// Domains other surfaces' users hold (Mail.td Pro domains): nobody here may add a domain held there verified.
    let otherClaims: (any CustomDomainClaims)?
    let clock: @Sendable () -> Int64

    public init(
        database: any SQLDatabase, resolver: DNSResolver, mxHost: String, served: [String], limit: Int,
        verificationWindow: Int64 = OwnersConfiguration.defaultDomainVerificationWindow,
        otherClaims: (any CustomDomainClaims)? = nil, clock: @escaping @Sendable () -> Int64
    ) {
        self.database = database
        self.otherClaims = otherClaims
        self.resolver = resolver
        self.mxHost = mxHost
        self.served = Set(served.map { $0.lowercased() })
        self.limit = limit
        self.verificationWindow = verificationWindow
        self.clock = clock
    }

    /// The owner's domains, oldest first; the owner's claims pending past the window are deleted first.
    public func domains(ownerID: String) async throws -> [OwnerDomain] {
        let lapsed = clock() - verificationWindow
        return try await database.write { connection in
            try connection.run(
                "DELETE FROM owner_domains WHERE owner_id = ? AND verified_at IS NULL AND created_at < ?",
                [.text(ownerID), .integer(lapsed)])
            return try connection.query(Self.select + " WHERE owner_id = ? ORDER BY created_at, id", [.text(ownerID)])
                .compactMap(Self.domain)
        }
    }

    /// The owner's verified domain named `name`, if any.
    public func verified(_ name: String, ownerID: String) async throws -> OwnerDomain? {
        try await database.read { connection in
            try connection.query(
                Self.select + " WHERE owner_id = ? AND domain = ? AND verified_at IS NOT NULL",
                [.text(ownerID), .text(name.lowercased())]
            ).first.flatMap(Self.domain)
        }
    }

    /// Adds `name` for `ownerID`, pending. Other owners' and Pro users' pending claims on it do not stand in the way.
    /// - Throws: ``OwnerDomainError``: ``OwnerDomainError/taken`` when someone holds it verified (here or as a
    ///   Mail.td Pro domain), this server serves it, or the owner claims it already; storage errors.
    public func add(_ name: String, ownerID: String) async throws -> OwnerDomain {
        guard let name = DomainName.normalized(name), name.contains(".") else { throw OwnerDomainError.invalidDomain }
        guard !served.contains(name) else { throw OwnerDomainError.taken }
        if try await otherClaims?.holdsVerified(domain: name) == true { throw OwnerDomainError.taken }
        let record = OwnerDomain(
            id: UUID().uuidString.lowercased(), ownerID: ownerID, domain: name,
            verifyToken: "postern-verify-" + SecureRandom.hex(byteCount: 12), verifiedAt: nil, mxConfigured: false,
            createdAt: clock())
        let limit = limit
        let lapsed = record.createdAt - verificationWindow
        do {
            try await database.write { connection in
                try connection.transaction {
                    try connection.run(
                        """
                        DELETE FROM owner_domains WHERE verified_at IS NULL AND created_at < ?
                        AND (owner_id = ? OR domain = ?)
                        """,
                        [.integer(lapsed), .text(ownerID), .text(name)])
                    let claims = try connection.query(
                        """
                        SELECT owner_id FROM owner_domains
                        WHERE domain = ? AND (verified_at IS NOT NULL OR owner_id = ?)
                        """, [.text(name), .text(ownerID)])
                    guard claims.isEmpty else { throw OwnerDomainError.taken }
                    let count = try connection.query(
                        "SELECT COUNT(*) AS n FROM owner_domains WHERE owner_id = ?", [.text(ownerID)]
                    ).first?.int("n") ?? 0
                    guard count < limit else { throw OwnerDomainError.limitReached }
                    try connection.run(
                        """
                        INSERT INTO owner_domains (id, owner_id, domain, verify_token, verified_at, mx_configured,
                            created_at) VALUES (?, ?, ?, ?, NULL, 0, ?)
                        """,
                        [.text(record.id), .text(ownerID), .text(name), .text(record.verifyToken),
                         .integer(record.createdAt)])
                }
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw OwnerDomainError.taken
        }
        // Asked again once the row is in: a Pro user who verified the domain meanwhile keeps it.
        if try await otherClaims?.holdsVerified(domain: name) == true {
            try await remove(id: record.id)
            throw OwnerDomainError.taken
        }
        return record
    }

    /// Looks the records of the owner's domain `id` up now and keeps the result: verified when the TXT holds this
    /// claim's own token (an MX naming this server proves nothing: it is every tenant's), verified for good once it
    /// was; `mxConfigured` follows every check. The first claim to verify wins: the other pending claims on the domain,
    /// here and on the other surface, are deleted. Nil when the owner has no such domain. A lookup without an answer
    /// leaves the domain pending, with the reason in the check's message.
    /// - Throws: ``OwnerDomainError/expired`` for a claim pending past the window (deleted now);
    ///   ``OwnerDomainError/taken`` when someone else verified the domain first (this claim is deleted, unless the
    ///   other surface verified it in the same instant: then it stays pending); storage errors.
    public func verify(id: String, ownerID: String) async throws -> (domain: OwnerDomain, check: DomainOwnershipCheck)? {
        guard var record = try await domain(id: id, ownerID: ownerID) else { return nil }
        if record.verifiedAt == nil, clock() - record.createdAt > verificationWindow {
            try await remove(id: record.id)
            throw OwnerDomainError.expired
        }
        let check = await DomainOwnershipCheck.run(
            domain: record.domain, token: record.verifyToken, mxHost: mxHost, resolver: resolver)
        record.mxConfigured = check.mxFound
        let mx = SQLValue.integer(check.mxFound ? 1 : 0)
        guard record.verifiedAt == nil, check.txtFound else {
            _ = try await database.write { connection in
                try connection.run("UPDATE owner_domains SET mx_configured = ? WHERE id = ?", [mx, .text(id)])
            }
            return (record, check)
        }
        if try await otherClaims?.holdsVerified(domain: record.domain) == true {
            try await remove(id: record.id)
            throw OwnerDomainError.taken
        }
        let now = clock()
        do {
            // The partial unique index on verified domains decides a race between two owners.
            _ = try await database.write { connection in
                try connection.run(
                    "UPDATE owner_domains SET verified_at = ?, mx_configured = ? WHERE id = ? AND verified_at IS NULL",
                    [.integer(now), mx, .text(id)])
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            try await remove(id: record.id)
            throw OwnerDomainError.taken
        }
        // Asked again once verified: of two verifies racing on two surfaces, the later one to ask sees the other.
        if try await otherClaims?.holdsVerified(domain: record.domain) == true {
            _ = try await database.write { connection in
                try connection.run("UPDATE owner_domains SET verified_at = NULL WHERE id = ?", [.text(id)])
            }
            throw OwnerDomainError.taken
        }
        record.verifiedAt = now
        let domain = record.domain
        _ = try await database.write { connection in
            try connection.run(
                "DELETE FROM owner_domains WHERE domain = ? AND verified_at IS NULL", [.text(domain)])
        }
        try await otherClaims?.dropPending(domain: domain)
        return (record, check)
    }

    /// Deletes the owner's domain `id`. False when there is none.
    /// - Warning: inboxes on a domain outlive nothing: they are local only while their owner holds the domain
    ///   verified. The caller refuses the delete while the owner has inboxes on it (``OwnerDomainPages``).
    public func delete(id: String, ownerID: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM owner_domains WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)]) > 0
        }
    }

    /// The owner's domain `id`, whatever its state.
    public func domain(id: String, ownerID: String) async throws -> OwnerDomain? {
        try await database.read { connection in
            try connection.query(Self.select + " WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)])
                .first.flatMap(Self.domain)
        }
    }

    private func remove(id: String) async throws {
        _ = try await database.write { connection in
            try connection.run("DELETE FROM owner_domains WHERE id = ?", [.text(id)])
        }
    }

    /// Deletes every claim pending longer than `window` seconds at `now` (``OwnerPurge``); returns how many went.
    static func purgeLapsed(_ connection: any SQLConnection, now: Int64, window: Int64) throws -> Int {
        try connection.run(
            "DELETE FROM owner_domains WHERE verified_at IS NULL AND created_at < ?", [.integer(now - window)])
    }

    private static let select =
        "SELECT id, owner_id, domain, verify_token, verified_at, mx_configured, created_at FROM owner_domains"

    private static func domain(_ row: SQLRow) -> OwnerDomain? {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let domain = row.text("domain"),
            let token = row.text("verify_token"), let created = row.int("created_at")
        else { return nil }
        return OwnerDomain(
            id: id, ownerID: owner, domain: domain, verifyToken: token, verifiedAt: row.int("verified_at"),
            mxConfigured: row.int("mx_configured") == 1, createdAt: created)
    }
}
