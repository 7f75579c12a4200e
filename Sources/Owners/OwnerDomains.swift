import AuthCrypto
import DNS
import Directory
import Foundation
import Storage

/// Owners' custom domains (`owner_domains`, migration 0020): add, check by DNS, list, delete. One check mechanism with
/// Mail.td's Pro domains (`DomainOwnershipCheck`): the TXT token at the apex, an MX there naming `mxHost`.
public struct OwnerDomains: Sendable {
    let database: any SQLDatabase
    let resolver: DNSResolver
    /// The host an MX must name (`POSTERN_MX_HOST`).
    public let mxHost: String
    /// Domains this server serves itself (agent and mailbox domains): nobody may add them.
    let served: Set<String>
    /// Most domains one owner may add.
    public let limit: Int
    /// Domains other surfaces' users hold (Mail.td Pro domains): nobody here may add them.
    let otherClaims: (any CustomDomainClaims)?
    let clock: @Sendable () -> Int64

    public init(
        database: any SQLDatabase, resolver: DNSResolver, mxHost: String, served: [String], limit: Int,
        otherClaims: (any CustomDomainClaims)? = nil, clock: @escaping @Sendable () -> Int64
    ) {
        self.database = database
        self.otherClaims = otherClaims
        self.resolver = resolver
        self.mxHost = mxHost
        self.served = Set(served.map { $0.lowercased() })
        self.limit = limit
        self.clock = clock
    }

    /// The owner's domains, oldest first.
    public func domains(ownerID: String) async throws -> [OwnerDomain] {
        try await database.read { connection in
            try connection.query(Self.select + " WHERE owner_id = ? ORDER BY created_at, id", [.text(ownerID)])
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

    /// Adds `name` for `ownerID`, pending.
    /// - Throws: ``OwnerDomainError`` (``OwnerDomainError/taken`` also when a Mail.td Pro user holds it); storage errors.
    public func add(_ name: String, ownerID: String) async throws -> OwnerDomain {
        guard let name = DomainName.normalized(name), name.contains(".") else { throw OwnerDomainError.invalidDomain }
        guard !served.contains(name) else { throw OwnerDomainError.taken }
        if try await otherClaims?.holds(domain: name) == true { throw OwnerDomainError.taken }
        let record = OwnerDomain(
            id: UUID().uuidString.lowercased(), ownerID: ownerID, domain: name,
            verifyToken: "postern-verify-" + SecureRandom.hex(byteCount: 12), verifiedAt: nil, mxConfigured: false,
            createdAt: clock())
        let limit = limit
        let inserted: Bool
        do {
            inserted = try await database.write { connection -> Bool in
            try connection.transaction {
                let count = try connection.query(
                    "SELECT COUNT(*) AS n FROM owner_domains WHERE owner_id = ?", [.text(ownerID)]
                ).first?.int("n") ?? 0
                guard count < limit else { return false }
                try connection.run(
                    """
                    INSERT INTO owner_domains (id, owner_id, domain, verify_token, verified_at, mx_configured, created_at)
                    VALUES (?, ?, ?, ?, NULL, 0, ?)
                    """,
                    [.text(record.id), .text(ownerID), .text(name), .text(record.verifyToken), .integer(record.createdAt)])
                return true
            }
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw OwnerDomainError.taken
        }
        guard inserted else { throw OwnerDomainError.limitReached }
        // Asked again once the row is in: of two adds racing on two surfaces, each of which saw the domain free, the
        // later one to ask sees the other's row, so at most one keeps it.
        if try await otherClaims?.holds(domain: name) == true {
            _ = try await delete(id: record.id, ownerID: ownerID)
            throw OwnerDomainError.taken
        }
        return record
    }

    /// Looks the records of the owner's domain `id` up now and keeps the result: verified when the TXT holds the token
    /// or the MX names this server, verified for good once it was. Nil when the owner has no such domain. A lookup
    /// without an answer leaves the domain pending, with the reason in the check's message.
    /// - Throws: storage errors.
    public func verify(id: String, ownerID: String) async throws -> (domain: OwnerDomain, check: DomainOwnershipCheck)? {
        guard var record = try await domain(id: id, ownerID: ownerID) else { return nil }
        let check = await DomainOwnershipCheck.run(
            domain: record.domain, token: record.verifyToken, mxHost: mxHost, resolver: resolver)
        let now = clock()
        if record.verifiedAt == nil, check.txtFound || check.mxFound { record.verifiedAt = now }
        record.mxConfigured = check.mxFound
        let verifiedAt = record.verifiedAt
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE owner_domains SET verified_at = COALESCE(verified_at, ?), mx_configured = ? WHERE id = ?",
                [verifiedAt.map(SQLValue.integer) ?? .null, .integer(check.mxFound ? 1 : 0), .text(id)])
        }
        return (record, check)
    }

    /// Deletes the owner's domain `id`; inboxes already made on it stay. False when there is none.
    public func delete(id: String, ownerID: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM owner_domains WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)]) > 0
        }
    }

    private func domain(id: String, ownerID: String) async throws -> OwnerDomain? {
        try await database.read { connection in
            try connection.query(Self.select + " WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)])
                .first.flatMap(Self.domain)
        }
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
