import Storage

extension MailboxStore {
    // MARK: Pro users

    private static let userColumns =
        "id, email, password_hash, max_accounts, max_domains, status, token_epoch, created_at"

    func proUser(id: String) async throws -> ProUserRecord? {
        try await database.read { connection in
            try connection.query("SELECT \(Self.userColumns) FROM mailbox_pro_users WHERE id = ?", [.text(id)])
                .first.flatMap(Self.proUser)
        }
    }

    package func proUser(email: String) async throws -> ProUserRecord? {
        try await database.read { connection in
            try connection.query("SELECT \(Self.userColumns) FROM mailbox_pro_users WHERE email = ?", [.text(email)])
                .first.flatMap(Self.proUser)
        }
    }

    /// Inserts a Pro user, their email proven at `emailVerifiedAt` when given (migration 0052); a taken email throws
    /// `StorageError` with `.constraintUnique`.
    func insert(_ user: ProUserRecord, emailVerifiedAt: Int64? = nil) async throws {
        try await database.write { connection in
            _ = try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, max_domains, status,
                    token_epoch, created_at, email_verified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(user.id), .text(user.email), .text(user.passwordHash), .integer(user.maxAccounts),
                    .integer(user.maxDomains), .text(user.status), .integer(user.tokenEpoch),
                    .integer(user.createdAt), emailVerifiedAt.map(SQLValue.integer) ?? .null,
                ])
        }
    }

    /// A new password hash for the Pro user with `email`, its token epoch bumped; false when there is none.
    func setProUserPassword(email: String, hash: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE mailbox_pro_users SET password_hash = ?, token_epoch = token_epoch + 1 WHERE email = ?",
                [.text(hash), .text(email)]) > 0
        }
    }

    /// Moves Pro user `id`'s token epoch on, on `connection` inside the caller's transaction: every Pro JWT and every
    /// web-inbox session resting on the old epoch ends, as a password reset ends them. Returns the new epoch; nil
    /// when there is no such user.
    /// - Throws: storage errors.
    package static func moveProTokenEpochOn(id: String, _ connection: any SQLConnection) throws -> Int64? {
        guard try connection.run(
            "UPDATE mailbox_pro_users SET token_epoch = token_epoch + 1 WHERE id = ?", [.text(id)]) > 0
        else { return nil }
        return try connection.query("SELECT token_epoch FROM mailbox_pro_users WHERE id = ?", [.text(id)])
            .first?.int("token_epoch")
    }

    /// Empties the password hash of Pro user `id` while it is still `hash` (a `set-password` in between wins).
    func removeProUserPassword(id: String, hash: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE mailbox_pro_users SET password_hash = '' WHERE id = ? AND password_hash = ?",
                [.text(id), .text(hash)]) == 1
        }
    }

    /// Deletes every Pro user, and with each (by the foreign keys' cascade) their accounts, tokens, sandbox,
    /// webhook, domain claims, passkeys and linked sign-in identities: the operator's `?reset=everything`. Returns
    /// how many Pro users went.
    package func deleteEveryProUser() async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM mailbox_pro_users")
        }
    }

    func proUserSummaries() async throws -> [ProUserSummary] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT u.id, u.email, u.max_accounts, u.created_at,
                    (SELECT COUNT(*) FROM mailbox_accounts a WHERE a.owner_id = u.id) AS account_count
                FROM mailbox_pro_users u ORDER BY u.created_at, u.email
                """
            ).compactMap { row in
                guard let id = row.text("id"), let email = row.text("email"), let max = row.int("max_accounts"),
                    let count = row.int("account_count"), let createdAt = row.int("created_at")
                else { return nil }
                return ProUserSummary(
                    id: id, email: email, maxAccounts: Int(max), accountCount: Int(count), createdAt: createdAt)
            }
        }
    }

    private static func proUser(_ row: SQLRow) -> ProUserRecord? {
        guard let id = row.text("id"), let email = row.text("email"), let hash = row.text("password_hash"),
            let maxAccounts = row.int("max_accounts"), let maxDomains = row.int("max_domains"),
            let status = row.text("status"), let epoch = row.int("token_epoch"), let createdAt = row.int("created_at")
        else { return nil }
        return ProUserRecord(
            id: id, email: email, passwordHash: hash, maxAccounts: maxAccounts, maxDomains: maxDomains,
            status: status, tokenEpoch: epoch, createdAt: createdAt)
    }

    // MARK: Pro API tokens

    private static let tokenColumns = "id, user_id, name, digest, created_at, last_used_at, revoked_at"

    func insert(_ token: ProTokenRecord) async throws {
        try await database.write { connection in
            _ = try connection.run(
                "INSERT INTO mailbox_pro_tokens (id, user_id, name, digest, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(token.id), .text(token.userID), .text(token.name), .blob(token.digest),
                    .integer(token.createdAt),
                ])
        }
    }

    /// The live (unrevoked) token with this digest.
    func liveProToken(digest: [UInt8]) async throws -> ProTokenRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.tokenColumns) FROM mailbox_pro_tokens WHERE digest = ? AND revoked_at IS NULL",
                [.blob(digest)]
            ).first.flatMap(Self.proToken)
        }
    }

    /// The live (unrevoked) token with this id.
    func liveProToken(id: String) async throws -> ProTokenRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.tokenColumns) FROM mailbox_pro_tokens WHERE id = ? AND revoked_at IS NULL", [.text(id)]
            ).first.flatMap(Self.proToken)
        }
    }

    func proTokens(userID: String) async throws -> [ProTokenRecord] {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.tokenColumns) FROM mailbox_pro_tokens WHERE user_id = ? ORDER BY created_at, id",
                [.text(userID)]
            ).compactMap(Self.proToken)
        }
    }

    /// Revokes a user's token (idempotent): `found` false when the user has no token with this id, `revoked` true
    /// only for the call that revoked it.
    func revokeProToken(id: String, userID: String, now: Int64) async throws -> (found: Bool, revoked: Bool) {
        try await database.write { connection in
            let changed = try connection.run(
                "UPDATE mailbox_pro_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                [.integer(now), .text(id), .text(userID)])
            let found = try !connection.query(
                "SELECT 1 FROM mailbox_pro_tokens WHERE id = ? AND user_id = ?", [.text(id), .text(userID)]
            ).isEmpty
            return (found, changed > 0)
        }
    }

    func touchProToken(id: String, now: Int64) async throws {
        try await database.write { connection in
            _ = try connection.run(
                """
                UPDATE mailbox_pro_tokens SET last_used_at = ?
                    WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)
                """,
                [.integer(now), .text(id), .integer(now)])
        }
    }

    private static func proToken(_ row: SQLRow) -> ProTokenRecord? {
        guard let id = row.text("id"), let userID = row.text("user_id"), let name = row.text("name"),
            let digest = row.blob("digest"), let createdAt = row.int("created_at")
        else { return nil }
        return ProTokenRecord(
            id: id, userID: userID, name: name, digest: digest, createdAt: createdAt,
            lastUsedAt: row.int("last_used_at"), revokedAt: row.int("revoked_at"))
    }

    // MARK: secrets

    /// The named secret, created from `make()` on first use and kept (synchronous: used at start). Race-free
    /// across processes and instances starting at once: the first insert wins, every caller reads the winner's.
    package func secret(named name: String, make: () -> [UInt8]) throws -> [UInt8] {
        try SharedSecrets(database: database, table: "mailbox_secrets").secret(named: name, make: make)
    }
}
