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

    /// Inserts a pending claim. In one write transaction: claims pending longer than `window` seconds on this domain
    /// or of this user are deleted, the domain is refused when someone holds it verified here or the user claims it
    /// already (`.domainAlreadyExists`), and the user's count is checked (`.domainLimitReached`). Other users'
    /// pending claims do not stand in the way; the unique indexes of 0024 decide races.
    func insert(_ record: ProDomainRecord, limit: Int64, window: Int64) async throws {
        try await database.write { connection in
            try connection.transaction {
                _ = try connection.run(
                    """
                    DELETE FROM mailbox_pro_domains WHERE verified_at IS NULL AND created_at < ?
                    AND (owner_id = ? OR domain = ?)
                    """,
                    [.integer(record.createdAt - window), .text(record.ownerID), .text(record.domain)])
                let claims = try connection.query(
                    "SELECT 1 FROM mailbox_pro_domains WHERE domain = ? AND (verified_at IS NOT NULL OR owner_id = ?)",
                    [.text(record.domain), .text(record.ownerID)])
                if !claims.isEmpty { throw MailboxError.domainAlreadyExists }
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

    /// Marks the pending claim `id` verified at `now`. False when it was verified already (or is gone).
    /// - Throws: `.domainAlreadyExists` when another claim here holds the domain verified (the partial unique index of
    ///   0024 decides a race); storage errors.
    func markVerified(id: String, now: Int64, mxConfigured: Bool) async throws -> Bool {
        do {
            return try await database.write { connection in
                try connection.run(
                    """
                    UPDATE mailbox_pro_domains SET verified_at = ?, mx_configured = ?
                    WHERE id = ? AND verified_at IS NULL
                    """,
                    [.integer(now), .integer(mxConfigured ? 1 : 0), .text(id)]) > 0
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw MailboxError.domainAlreadyExists
        }
    }

    /// Puts the claim `id` back to pending: another surface verified the domain in the same instant.
    func markPending(id: String) async throws {
        _ = try await database.write { connection in
            try connection.run("UPDATE mailbox_pro_domains SET verified_at = NULL WHERE id = ?", [.text(id)])
        }
    }

    /// Records what the last check saw of the MX.
    func recordMX(id: String, mxConfigured: Bool) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE mailbox_pro_domains SET mx_configured = ? WHERE id = ?",
                [.integer(mxConfigured ? 1 : 0), .text(id)])
        }
    }

    /// Deletes every pending claim on `domain`, whoever made it: a claim on it was verified.
    func deletePendingDomains(_ domain: String) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "DELETE FROM mailbox_pro_domains WHERE domain = ? AND verified_at IS NULL", [.text(domain)])
        }
    }

    /// Deletes the user's claims pending longer than `window` seconds at `now`.
    func deleteLapsedDomains(ownerID: String, now: Int64, window: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "DELETE FROM mailbox_pro_domains WHERE owner_id = ? AND verified_at IS NULL AND created_at < ?",
                [.text(ownerID), .integer(now - window)])
        }
    }

    /// Deletes the claim `id`, whoever holds it.
    func deleteDomain(id: String) async throws {
        _ = try await database.write { connection in
            try connection.run("DELETE FROM mailbox_pro_domains WHERE id = ?", [.text(id)])
        }
    }

    /// Deletes the user's domain unless the user still has accounts on it; false when there was none.
    /// - Throws: `.domainInUse` when accounts of the user remain on it; storage errors.
    func deleteDomain(id: String, ownerID: String) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                guard
                    let domain = try connection.query(
                        "SELECT domain FROM mailbox_pro_domains WHERE id = ? AND owner_id = ?",
                        [.text(id), .text(ownerID)]
                    ).first?.text("domain")
                else { return false }
                // Domain names are letters, digits, dots and hyphens: nothing in one is a LIKE wildcard.
                let accounts = try connection.query(
                    "SELECT 1 FROM mailbox_accounts WHERE owner_id = ? AND address LIKE ?",
                    [.text(ownerID), .text("%@" + domain)])
                if !accounts.isEmpty { throw MailboxError.domainInUse }
                return try connection.run(
                    "DELETE FROM mailbox_pro_domains WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)]) > 0
            }
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
