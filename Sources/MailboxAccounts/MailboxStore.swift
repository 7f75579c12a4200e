import MailStore
import Storage

/// The surface's tables (`migrations/sqlite/0003_mailbox.sql`) behind small async methods: accounts, Pro users, their
/// API tokens and domains, the surface's secrets. The composition root builds it and gives it to the service.
public struct MailboxStore: Sendable {
    let database: any SQLDatabase

    /// A store over a database migrated through `0003_mailbox.sql` and on.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    // MARK: accounts

    /// `used` is what the mail store holds for the address (the table's own `used` column predates it and stays 0),
    /// read in the same statement through the mail store's expression.
    private static let accountColumns = """
        id, address, password_hash, auth_verifier, owner_id, quota, token_epoch, created_at,
        \(MailStore.messageBytes(ofAddressIn: "mailbox_accounts.address")) AS used
        """

    func account(id: String) async throws -> MailboxAccountRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.accountColumns) FROM mailbox_accounts WHERE id = ?", [.text(id)]
            ).first.flatMap(Self.account)
        }
    }

    /// Whether ``account(id:onLoop:)`` may read: the database reads from event loops (PostgreSQL with loop reads on).
    /// False on SQLite, whose routes keep their own way.
    package var readsOnLoops: Bool { (database as? any LoopReading)?.readsOnLoops ?? false }

    /// The account `id`, read from the calling event loop without a thread waiting for it (``LoopReading``): the same
    /// statement as ``account(id:)``; `completion` runs on the loop. False, and no `completion`, when the read cannot go
    /// that way now (the caller reads with ``account(id:)``).
    package func account(
        id: String, onLoop completion: @escaping (Result<MailboxAccountRecord?, any Error>) -> Void
    ) -> Bool {
        guard let database = database as? any LoopReading else { return false }
        return database.readOnLoop(
            "SELECT \(Self.accountColumns) FROM mailbox_accounts WHERE id = ?", [.text(id)],
            decode: { $0.first.flatMap(Self.account) }, completion: completion)
    }

    func account(address: String) async throws -> MailboxAccountRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.accountColumns) FROM mailbox_accounts WHERE address = ?", [.text(address)]
            ).first.flatMap(Self.account)
        }
    }

    /// The id, quota and Pro owner (nil: a free account) of the account with `address`, or nil when there is none.
    func quotaAndOwner(address: String) async throws -> (id: String, quota: Int64, ownerID: String?)? {
        try await database.read { connection in
            try connection.query(
                "SELECT id, quota, owner_id FROM mailbox_accounts WHERE address = ?", [.text(address)]
            ).first.flatMap { row in
                guard let id = row.text("id"), let quota = row.int("quota") else { return nil }
                return (id, quota, row.text("owner_id"))
            }
        }
    }

    package func addressExists(_ address: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query("SELECT 1 FROM mailbox_accounts WHERE address = ?", [.text(address)]).isEmpty
        }
    }

    /// Inserts an account; the UNIQUE constraint on `address` decides races (`.addressTaken`), and for a
    /// Pro owner the count and the insert share one write transaction (`.accountLimitReached`).
    package func insert(_ record: MailboxAccountRecord, ownerLimit: Int64?) async throws {
        try await database.write { connection in
            try connection.transaction {
                if let owner = record.ownerID, let ownerLimit {
                    let count =
                        try connection.query(
                            "SELECT COUNT(*) AS n FROM mailbox_accounts WHERE owner_id = ?", [.text(owner)]
                        ).first?.int("n") ?? 0
                    if count >= ownerLimit { throw MailboxError.accountLimitReached }
                }
                do {
                    _ = try connection.run(
                        """
                        INSERT INTO mailbox_accounts (id, address, password_hash, auth_verifier, owner_id, quota, used,
                            token_epoch, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(record.id), .text(record.address), .text(record.passwordHash),
                            record.authVerifier.map(SQLValue.blob) ?? .null, record.ownerID.map(SQLValue.text) ?? .null, .integer(record.quota),
                            .integer(record.used), .integer(record.tokenEpoch), .integer(record.createdAt),
                        ])
                } catch let error as StorageError where error.code == .constraintUnique {
                    throw MailboxError.addressTaken
                }
            }
        }
    }

    /// Deletes an account; false when it was already gone.
    package func deleteAccount(id: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM mailbox_accounts WHERE id = ?", [.text(id)]) > 0
        }
    }

    /// Deletes every account created at or after `since` (Unix seconds): the operator's reset of the accounts a test
    /// run made. Returns how many went.
    package func deleteAccounts(createdSince since: Int64) async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM mailbox_accounts WHERE created_at >= ?", [.integer(since)])
        }
    }

    /// Stores a new verifier (dropping any pre-`auth_key` hash) and bumps the token epoch, so every earlier
    /// token fails.
    package func resetPassword(accountID: String, verifier: [UInt8]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE mailbox_accounts SET password_hash = '', auth_verifier = ?, token_epoch = token_epoch + 1
                    WHERE id = ?
                """,
                [.blob(verifier), .text(accountID)]) > 0
        }
    }

    /// Replaces a pre-`auth_key` password hash by the verifier of the same password, unless a reset got there
    /// first. Tokens stay valid: the password did not change.
    func upgrade(accountID: String, from passwordHash: String, to verifier: [UInt8]) async throws {
        try await database.write { connection in
            _ = try connection.run(
                """
                UPDATE mailbox_accounts SET password_hash = '', auth_verifier = ?
                    WHERE id = ? AND auth_verifier IS NULL AND password_hash = ?
                """,
                [.blob(verifier), .text(accountID), .text(passwordHash)])
        }
    }

    /// A page of a Pro user's accounts ordered by creation, after `(createdAt, id)` when given.
    package func accounts(ownerID: String, after cursor: (Int64, String)?, limit: Int) async throws -> [MailboxAccountRecord] {
        try await database.read { connection in
            if let cursor {
                return try connection.query(
                    """
                    SELECT \(Self.accountColumns) FROM mailbox_accounts WHERE owner_id = ?
                        AND (created_at > ? OR (created_at = ? AND id > ?)) ORDER BY created_at, id LIMIT ?
                    """,
                    [.text(ownerID), .integer(cursor.0), .integer(cursor.0), .text(cursor.1), .integer(Int64(limit))]
                ).compactMap(Self.account)
            }
            return try connection.query(
                """
                SELECT \(Self.accountColumns) FROM mailbox_accounts WHERE owner_id = ?
                    ORDER BY created_at, id LIMIT ?
                """,
                [.text(ownerID), .integer(Int64(limit))]
            ).compactMap(Self.account)
        }
    }

    /// How many accounts and Pro users there are, read on `connection` (the start-up check for lost keys: each holds
    /// tokens the key ring signed).
    /// - Throws: storage errors.
    public static func accountRows(_ connection: any SQLConnection) throws -> Int64 {
        try connection.query(
            "SELECT (SELECT COUNT(*) FROM mailbox_accounts) + (SELECT COUNT(*) FROM mailbox_pro_users) AS n"
        ).first?.int("n") ?? 0
    }

    package func accountCount(ownerID: String) async throws -> Int64 {
        try await database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mailbox_accounts WHERE owner_id = ?", [.text(ownerID)])
                .first?.int("n") ?? 0
        }
    }

    private static func account(_ row: SQLRow) -> MailboxAccountRecord? {
        guard let id = row.text("id"), let address = row.text("address"), let hash = row.text("password_hash"),
            let quota = row.int("quota"), let used = row.int("used"), let epoch = row.int("token_epoch"),
            let createdAt = row.int("created_at")
        else { return nil }
        return MailboxAccountRecord(
            id: id, address: address, passwordHash: hash, authVerifier: row.blob("auth_verifier"),
            ownerID: row.text("owner_id"), quota: quota, used: used, tokenEpoch: epoch, createdAt: createdAt)
    }
}
