import Storage

/// A live agent account as the session and capability steps need it.
public struct AgentAccount: Sendable, Equatable {
    /// Account id (lowercase UUID), the `sub` of session and capability tokens.
    public let id: String
    /// The username, the local part of the inbox address.
    public let username: String
    /// When an owner last rotated the API key (Unix seconds): sessions issued before it are over. Nil: never.
    public var keyRotatedAt: Int64? = nil
    /// When the agent last logged in with its API key (Unix seconds); nil: never (migration 0030).
    public var lastLoginAt: Int64? = nil

    /// Whether a session issued at `issuedAt` (its `iat`) still stands: not from before a key rotation.
    public func acceptsSession(issuedAt: Int64) -> Bool {
        keyRotatedAt.map { issuedAt >= $0 } ?? true
    }
}

/// The `agent_accounts` table (migration `0002_agent.sql`).
///
/// Only live accounts (`revoked_at IS NULL`) are ever found; API keys are looked up by their SHA-256
/// digest, never stored in clear.
public struct AgentAccountStore: Sendable {
    /// The database holding `agent_accounts`.
    public let database: any SQLDatabase

    /// Makes a store over `database`; `0002_agent.sql` must have been applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Inserts an account; the UNIQUE constraint on `username` decides a race between two signups.
    /// - Returns: false when the username (or, impossibly, the key digest) is already taken.
    /// - Throws: `StorageError` for anything but the unique-constraint refusal.
    public func create(id: String, username: String, apiKeyDigest: [UInt8], now: Int64) async throws -> Bool {
        do {
            _ = try await database.write { connection in
                try connection.run(
                    "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES (?, ?, ?, ?)",
                    [.text(id), .text(username), .blob(apiKeyDigest), .integer(now)])
            }
            return true
        } catch let error as StorageError where error.code == .constraintUnique {
            return false
        }
    }

    /// The live account whose API key has SHA-256 digest `apiKeyDigest`, if any.
    public func liveAccount(apiKeyDigest: [UInt8]) async throws -> AgentAccount? {
        try await database.read { connection in
            try connection.query(
                """
                SELECT id, username, last_login_at FROM agent_accounts
                WHERE api_key_digest = ? AND revoked_at IS NULL
                """,
                [.blob(apiKeyDigest)]
            ).first.flatMap(Self.account)
        }
    }

    /// Deletes every account created at or after `since` (Unix seconds), live or revoked: the operator's reset of the
    /// accounts a test run made (their owner links go with them). Returns how many went.
    /// - Throws: storage errors.
    public func deleteAccounts(createdSince since: Int64) async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM agent_accounts WHERE created_at >= ?", [.integer(since)])
        }
    }

    /// Records a login with the API key at `now` (`last_login_at`); a later time already recorded stays.
    /// - Throws: storage errors.
    public func recordLogin(id: String, now: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                UPDATE agent_accounts SET last_login_at = ?
                WHERE id = ? AND (last_login_at IS NULL OR last_login_at < ?)
                """,
                [.integer(now), .text(id), .integer(now)])
        }
    }

    /// Every account, live and revoked, oldest first, with the id of the owner who holds it, if one does, read on
    /// `connection` (`postern agent list`, which asks the owners' store for their emails on the same connection).
    /// - Throws: storage errors.
    public static func listing(_ connection: any SQLConnection) throws -> [AgentAccountListing] {
        try connection.query(
            """
            SELECT a.username, a.created_at, a.last_login_at, a.revoked_at, o.owner_id
            FROM agent_accounts a LEFT JOIN owner_inboxes o ON o.agent_id = a.id
            ORDER BY a.created_at, a.username
            """
        ).compactMap { row in
            guard let username = row.text("username"), let created = row.int("created_at") else { return nil }
            return AgentAccountListing(
                username: username, ownerID: row.text("owner_id"), createdAt: created,
                lastLoginAt: row.int("last_login_at"), revokedAt: row.int("revoked_at"))
        }
    }

    /// How many accounts there are, live and revoked, read on `connection` (the start-up check for lost keys).
    /// - Throws: storage errors.
    public static func accountRows(_ connection: any SQLConnection) throws -> Int64 {
        try connection.query("SELECT COUNT(*) AS n FROM agent_accounts").first?.int("n") ?? 0
    }

    /// Whether a live account is named `username`.
    public func isLive(username: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                "SELECT 1 FROM agent_accounts WHERE username = ? AND revoked_at IS NULL", [.text(username)]
            ).isEmpty
        }
    }

    /// Whether a live agent is named by the whole address `username` (an inbox on an owner's custom domain) and held
    /// by the owner `ownerID` (`owner_inboxes`).
    public func isLiveInbox(username: String, ownerID: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                """
                SELECT 1 FROM agent_accounts a JOIN owner_inboxes o ON o.agent_id = a.id AND o.owner_id = ?
                WHERE a.username = ? AND a.revoked_at IS NULL
                """, [.text(ownerID), .text(username)]
            ).isEmpty
        }
    }

    /// The owner who holds the live agent named `username` (linked or made by them, `owner_inboxes`); nil when no live
    /// agent has the name or nobody holds it. On the agent domain the username is the local part; on an owner's custom
    /// domain it is the whole address.
    public func holder(ofLiveInbox username: String) async throws -> String? {
        try await database.read { connection in
            try connection.query(
                """
                SELECT o.owner_id FROM agent_accounts a JOIN owner_inboxes o ON o.agent_id = a.id
                WHERE a.username = ? AND a.revoked_at IS NULL
                """, [.text(username)]
            ).first?.text("owner_id")
        }
    }

    /// The live account with id `id`, if any.
    public func liveAccount(id: String) async throws -> AgentAccount? {
        try await database.read { connection in try Self.liveAccount(id: id, connection) }
    }

    /// The live account with id `id`, read on the calling thread through a reader's serial queue.
    ///
    /// For work already on a worker thread (the capability step reads and then signs in one job,
    /// instead of hopping to the reader queue and back before the signing hop).
    /// - Warning: blocks the calling thread for the read; never call it on a socket event queue or a
    ///   Swift concurrency thread.
    public func liveAccountBlocking(id: String) throws -> AgentAccount? {
        try database.readSync { connection in try Self.liveAccount(id: id, connection) }
    }

    /// Whether `liveAccountOnCallingThread(id:)` reads here: the database reads on the calling thread's own
    /// connection (SQLite), never on PostgreSQL, whose read is a round trip.
    public var readsOnCallingThread: Bool { database.callingThread != nil }

    /// The live account with id `id`, read on the calling thread with a read-only connection the thread owns: for a
    /// short request run to completion on its event loop. Nil as well when the database has no such connections
    /// (check `readsOnCallingThread`).
    /// - Throws: storage errors.
    public func liveAccountOnCallingThread(id: String) throws -> AgentAccount? {
        guard let database = database.callingThread else { return nil }
        return try database.readOnCallingThread { connection in try Self.liveAccount(id: id, connection) }
    }

    /// The live account with id `id`, read from the calling event loop without a thread waiting for it (PostgreSQL's
    /// loop reads, ``LoopReading``); `completion` runs on the loop. False, and no `completion`, when the read cannot go
    /// that way (SQLite, loop reads off, the loop's connections not open yet).
    public func liveAccount(
        id: String, onLoop completion: @escaping (Result<AgentAccount?, any Error>) -> Void
    ) -> Bool {
        guard let database = database as? any LoopReading else { return false }
        return database.readOnLoop(
            Self.liveAccountSQL, [.text(id)], decode: { $0.first.flatMap(Self.account) }, completion: completion)
    }

    private static let liveAccountSQL =
        "SELECT id, username, key_rotated_at FROM agent_accounts WHERE id = ? AND revoked_at IS NULL"

    private static func liveAccount(id: String, _ connection: any SQLConnection) throws -> AgentAccount? {
        try connection.query(liveAccountSQL, [.text(id)]).first.flatMap(account)
    }

    /// Revokes the account named `username`: its API key and sessions stop working at once.
    /// - Returns: false when no live account has that name.
    @discardableResult
    public func revoke(username: String, now: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE agent_accounts SET revoked_at = ? WHERE username = ? AND revoked_at IS NULL",
                [.integer(now), .text(username)]) > 0
        }
    }

    /// Deletes the account named `username` (its name becomes free again).
    /// - Returns: false when no account has that name.
    @discardableResult
    public func delete(username: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM agent_accounts WHERE username = ?", [.text(username)]) > 0
        }
    }

    private static func account(_ row: SQLRow) -> AgentAccount? {
        guard let id = row.text("id"), let username = row.text("username") else { return nil }
        return AgentAccount(
            id: id, username: username, keyRotatedAt: row.int("key_rotated_at"), lastLoginAt: row.int("last_login_at"))
    }
}

/// One line of `postern agent list`.
public struct AgentAccountListing: Sendable, Equatable {
    /// The username: the inbox's local part on the agent domain, the whole address on an owner's custom domain.
    public let username: String
    /// The id of the owner holding the inbox (`owner_inboxes`); nil when nobody does.
    public let ownerID: String?
    /// Unix seconds.
    public let createdAt: Int64
    /// The last login with the API key, Unix seconds; nil: never.
    public let lastLoginAt: Int64?
    /// When the account was revoked, Unix seconds; nil while live.
    public let revokedAt: Int64?
}
