import Storage

/// Every statement on `custom_domain_claims` (migration 0033; `record_states` 0045): one row a claim, its holder in
/// `owner_id` or `pro_user_id` (exactly one is set; each cascades from its holder's table), `verified_at` NULL while
/// pending. A partial unique index allows one verified claim a domain, and one claim a holder a domain.
enum DomainClaimRows {
    static let columns =
        "id, owner_id, pro_user_id, domain, verify_token, verified_at, mx_configured, created_at, record_states"
    static let select = "SELECT \(columns) FROM custom_domain_claims"

    static func verified(_ domain: String, _ connection: any SQLConnection) throws -> DomainClaim? {
        try connection.query(select + " WHERE domain = ? AND verified_at IS NOT NULL", [.text(domain)])
            .first.flatMap(claim)
    }

    static func claim(id: String, of holder: DomainHolder, _ connection: any SQLConnection) throws -> DomainClaim? {
        try connection.query(select + " WHERE id = ? AND \(holder.column) = ?", [.text(id), .text(holder.id)])
            .first.flatMap(claim)
    }

    static func claims(of holder: DomainHolder, _ connection: any SQLConnection) throws -> [DomainClaim] {
        try connection.query(select + " WHERE \(holder.column) = ? ORDER BY created_at, id", [.text(holder.id)])
            .compactMap(claim)
    }

    static func count(of holder: DomainHolder, _ connection: any SQLConnection) throws -> Int64 {
        try connection.query(
            "SELECT COUNT(*) AS n FROM custom_domain_claims WHERE \(holder.column) = ?", [.text(holder.id)]
        ).first?.int("n") ?? 0
    }

    /// Whether anyone holds `domain` verified or `holder` claims it already.
    static func isTaken(_ domain: String, for holder: DomainHolder, _ connection: any SQLConnection) throws -> Bool {
        try !connection.query(
            """
            SELECT 1 FROM custom_domain_claims
            WHERE domain = ? AND (verified_at IS NOT NULL OR \(holder.column) = ?)
            """, [.text(domain), .text(holder.id)]
        ).isEmpty
    }

    static func insert(_ claim: DomainClaim, _ connection: any SQLConnection) throws {
        let owner: SQLValue = if case .owner(let id) = claim.holder { .text(id) } else { .null }
        let proUser: SQLValue = if case .proUser(let id) = claim.holder { .text(id) } else { .null }
        try connection.run(
            """
            INSERT INTO custom_domain_claims (id, owner_id, pro_user_id, domain, verify_token, verified_at,
                mx_configured, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(claim.id), owner, proUser, .text(claim.domain), .text(claim.verifyToken),
                claim.verifiedAt.map(SQLValue.integer) ?? .null, .integer(claim.mxConfigured ? 1 : 0),
                .integer(claim.createdAt),
            ])
    }

    /// Verifies the pending `claim` at `now`, keeping its `mxConfigured`; false when it is not pending (any more).
    static func markVerified(_ claim: DomainClaim, at now: Int64, _ connection: any SQLConnection) throws -> Bool {
        try connection.run(
            """
            UPDATE custom_domain_claims SET verified_at = ?, mx_configured = ? WHERE id = ? AND verified_at IS NULL
            """, [.integer(now), .integer(claim.mxConfigured ? 1 : 0), .text(claim.id)]) > 0
    }

    static func setMX(id: String, _ configured: Bool, _ connection: any SQLConnection) throws {
        try connection.run(
            "UPDATE custom_domain_claims SET mx_configured = ? WHERE id = ?", [.integer(configured ? 1 : 0), .text(id)])
    }

    /// Keeps what the last check of every record found (migration 0045).
    static func setRecordStates(id: String, _ states: DomainRecordStates, _ connection: any SQLConnection) throws {
        try connection.run(
            "UPDATE custom_domain_claims SET record_states = ? WHERE id = ?", [.text(states.json), .text(id)])
    }

    static func deletePending(on domain: String, _ connection: any SQLConnection) throws {
        try connection.run(
            "DELETE FROM custom_domain_claims WHERE domain = ? AND verified_at IS NULL", [.text(domain)])
    }

    static func delete(id: String, _ connection: any SQLConnection) throws {
        try connection.run("DELETE FROM custom_domain_claims WHERE id = ?", [.text(id)])
    }

    static func deleteLapsed(of holder: DomainHolder, before time: Int64, _ connection: any SQLConnection) throws {
        try connection.run(
            "DELETE FROM custom_domain_claims WHERE \(holder.column) = ? AND verified_at IS NULL AND created_at < ?",
            [.text(holder.id), .integer(time)])
    }

    static func deleteLapsed(
        of holder: DomainHolder, orOn domain: String, before time: Int64, _ connection: any SQLConnection
    ) throws {
        try connection.run(
            """
            DELETE FROM custom_domain_claims WHERE verified_at IS NULL AND created_at < ?
            AND (\(holder.column) = ? OR domain = ?)
            """, [.integer(time), .text(holder.id), .text(domain)])
    }

    @discardableResult
    static func deleteLapsed(before time: Int64, _ connection: any SQLConnection) throws -> Int {
        try connection.run(
            "DELETE FROM custom_domain_claims WHERE verified_at IS NULL AND created_at < ?", [.integer(time)])
    }

    static func claim(_ row: SQLRow) -> DomainClaim? {
        let holder: DomainHolder
        if let owner = row.text("owner_id") {
            holder = .owner(owner)
        } else if let proUser = row.text("pro_user_id") {
            holder = .proUser(proUser)
        } else {
            return nil
        }
        guard let id = row.text("id"), let domain = row.text("domain"), let token = row.text("verify_token"),
            let created = row.int("created_at")
        else { return nil }
        return DomainClaim(
            id: id, holder: holder, domain: domain, verifyToken: token, verifiedAt: row.int("verified_at"),
            mxConfigured: row.int("mx_configured") == 1, createdAt: created,
            recordStates: row.text("record_states").flatMap(DomainRecordStates.init(json:)))
    }
}

extension DomainHolder {
    /// The column that names a holder of this kind (never user input).
    var column: String {
        switch self {
        case .owner: "owner_id"
        case .proUser: "pro_user_id"
        }
    }
}
