import Storage

extension MailboxStore {
    private static let domainColumns = "id, owner_id, domain, verify_token, verified_at, mx_configured, created_at"

    /// The user's domains, oldest first.
    func domains(ownerID: String) async throws -> [ProDomainRecord] {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.domainColumns) FROM mailbox_pro_domains WHERE owner_id = ? ORDER BY created_at, id",
                [.text(ownerID)]
            ).compactMap(Self.domain)
        }
    }

    /// The user's domain with `id`, or nil (another user's is nil too).
    func domain(id: String, ownerID: String) async throws -> ProDomainRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.domainColumns) FROM mailbox_pro_domains WHERE id = ? AND owner_id = ?",
                [.text(id), .text(ownerID)]
            ).first.flatMap(Self.domain)
        }
    }

    /// The verified domain named `domain`, whoever owns it, or nil.
    func verifiedDomain(_ domain: String) async throws -> ProDomainRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.domainColumns) FROM mailbox_pro_domains WHERE domain = ? AND verified_at IS NOT NULL",
                [.text(domain)]
            ).first.flatMap(Self.domain)
        }
    }

    /// How many domains the user has (for `/api/user/me`).
    func domainCount(ownerID: String) async throws -> Int64 {
        try await database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mailbox_pro_domains WHERE owner_id = ?", [.text(ownerID)])
                .first?.int("n") ?? 0
        }
    }

    /// Inserts a domain: the user's count and the insert share one write transaction (`.domainLimitReached`), and
    /// the UNIQUE constraint on `domain` decides races between users (`.domainAlreadyExists`).
    func insert(_ record: ProDomainRecord, limit: Int64) async throws {
        try await database.write { connection in
            try connection.transaction {
                let count =
                    try connection.query(
                        "SELECT COUNT(*) AS n FROM mailbox_pro_domains WHERE owner_id = ?", [.text(record.ownerID)]
                    ).first?.int("n") ?? 0
                if count >= limit { throw MailboxError.domainLimitReached }
                do {
                    _ = try connection.run(
                        """
                        INSERT INTO mailbox_pro_domains (id, owner_id, domain, verify_token, verified_at,
                            mx_configured, created_at) VALUES (?, ?, ?, ?, NULL, 0, ?)
                        """,
                        [
                            .text(record.id), .text(record.ownerID), .text(record.domain), .text(record.verifyToken),
                            .integer(record.createdAt),
                        ])
                } catch let error as StorageError where error.code == .constraintUnique {
                    throw MailboxError.domainAlreadyExists
                }
            }
        }
    }

    /// Records a verification: `verifiedAt` is set once (a later failing check does not unverify), `mx_configured`
    /// follows every check.
    func recordVerification(id: String, verifiedAt: Int64?, mxConfigured: Bool) async throws {
        try await database.write { connection in
            _ = try connection.run(
                """
                UPDATE mailbox_pro_domains SET verified_at = COALESCE(verified_at, ?), mx_configured = ?
                WHERE id = ?
                """,
                [verifiedAt.map(SQLValue.integer) ?? .null, .integer(mxConfigured ? 1 : 0), .text(id)])
        }
    }

    /// Deletes the user's domain; false when there was none.
    func deleteDomain(id: String, ownerID: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "DELETE FROM mailbox_pro_domains WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)]) > 0
        }
    }

    private static func domain(_ row: SQLRow) -> ProDomainRecord? {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let domain = row.text("domain"),
            let token = row.text("verify_token"), let mx = row.int("mx_configured"),
            let createdAt = row.int("created_at")
        else { return nil }
        return ProDomainRecord(
            id: id, ownerID: owner, domain: domain, verifyToken: token, verifiedAt: row.int("verified_at"),
            mxConfigured: mx != 0, createdAt: createdAt)
    }
}
