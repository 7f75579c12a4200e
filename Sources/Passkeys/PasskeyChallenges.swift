import AuthCrypto
import Storage

/// The challenges of passkey ceremonies in progress (`passkey_challenges`, migration 0047): random, single-use, five
/// minutes long, and in the database, so that a ceremony begun on one instance finishes on another.
///
/// The guarantees: ``issue(_:for:now:)`` returns 32 random bytes and keeps only their SHA-256;
/// ``consume(_:_:for:now:)`` deletes the row in the same transaction that reads it, so a challenge is accepted at most
/// once (two instances racing with one challenge: one wins), and it is accepted only for the ceremony and the holder
/// it was issued to, before it expires. A challenge presented for another ceremony or person is spent all the same: a
/// ceremony that fails starts again with a new one. Time is the caller's (`now`, Unix seconds).
///
/// A sign-in's challenge is issued to anyone who asks (issue 66 item 6): the rows nobody signed in holds are counted
/// per client, each row recording the client that asked (issue 81 item 10), and in all (``limits``, counted in the
/// database so every instance shares them). A client past its share, or anyone past the ceiling, gets
/// ``PasskeyChallengesFull`` from ``issue(_:for:client:now:)`` until challenges expire, while another client under its
/// share still signs in; a registration, by a signed-in holder, is never refused.
public struct PasskeyChallenges: Sendable {
    /// What a challenge was issued for.
    public enum Ceremony: String, Sendable {
        /// Registering a passkey, for a signed-in holder.
        case registration
        /// Signing in: for a holder already known, or for nobody yet (discoverable credentials).
        case signIn = "sign_in"
    }

    /// How long a challenge stays acceptable, in seconds: 5 minutes.
    public static let lifetime: Int64 = 300
    /// The length of a challenge, in bytes.
    public static let byteCount = 32

    /// The database holding `passkey_challenges`.
    public let database: any SQLDatabase
    /// Most unexpired challenges issued to nobody at once: per client, and in all.
    public let limits: UnauthenticatedRowLimits

    /// Challenges kept in `database` (migrated to 0065).
    public init(database: any SQLDatabase, limits: UnauthenticatedRowLimits = UnauthenticatedRowLimits()) {
        self.database = database
        self.limits = limits
    }

    /// A new challenge for `ceremony`, bound to `holder` (nil: a sign-in whose holder the credential will name).
    /// - Parameter client: the key of the client that asks (`ClientAddressKey`'s text), whose share a challenge issued
    ///   to nobody counts against; nil counts as one more client, the unnamed one.
    /// - Returns: the challenge's bytes, for the browser (`PublicKeyCredential*Options.challenge`).
    /// - Throws: ``PasskeyChallengesFull`` for one issued to nobody past ``limits``; `StorageError`.
    public func issue(
        _ ceremony: Ceremony, for holder: PasskeyHolder?, client: String? = nil, now: Int64
    ) async throws -> [UInt8] {
        let challenge = SecureRandom.bytes(Self.byteCount)
        let (owner, proUser) = holder?.columns ?? (nil, nil)
        let client = client ?? ""
        // Only a sign-in's challenge, issued to nobody, counts against the caps.
        let caps =
            holder != nil
            ? []
            : limits.caps(
                table: "passkey_challenges", unauthenticated: "owner_id IS NULL AND pro_user_id IS NULL",
                unexpired: ">=", client: client, now: now)
        let inserted = try await database.write { connection in
            try connection.insert(
                """
                INSERT INTO passkey_challenges (digest, ceremony, owner_id, pro_user_id, expires_at, client)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(SHA256.hash(challenge)), .text(ceremony.rawValue), owner.map(SQLValue.text) ?? .null,
                    proUser.map(SQLValue.text) ?? .null, .integer(now + Self.lifetime), .text(client),
                ], within: caps)
        }
        guard inserted else { throw PasskeyChallengesFull() }
        return challenge
    }

    /// Spends `challenge`: true when it was issued for `ceremony` and `holder` and has not expired nor been spent.
    /// - Parameter holder: the holder the ceremony is for; nil for a sign-in issued to nobody.
    /// - Throws: `StorageError`.
    public func consume(
        _ challenge: [UInt8], _ ceremony: Ceremony, for holder: PasskeyHolder?, now: Int64
    ) async throws -> Bool {
        guard challenge.count == Self.byteCount else { return false }
        let digest = SHA256.hash(challenge)
        return try await database.write { connection in
            try connection.transaction {
                let rows = try connection.query(
                    "SELECT ceremony, owner_id, pro_user_id, expires_at FROM passkey_challenges WHERE digest = ?",
                    [.blob(digest)])
                guard let row = rows.first else { return false }
                try connection.run("DELETE FROM passkey_challenges WHERE digest = ?", [.blob(digest)])
                let issuedTo = PasskeyHolder(owner: row.text("owner_id"), proUser: row.text("pro_user_id"))
                return row.text("ceremony") == ceremony.rawValue && issuedTo == holder
                    && (row.int("expires_at") ?? 0) >= now
            }
        }
    }

    /// Deletes challenges that expired before `now`.
    /// - Returns: how many rows were removed.
    @discardableResult
    public func purgeExpired(now: Int64) async throws -> Int {
        try await database.write { connection in try Self.purge(connection, now: now) }
    }

    /// Deletes challenges that expired before `now` in `connection`, for a purge that sheds several tables (the
    /// owners' `OwnerPurge`, run every minute): ceremonies begun and never finished leave nothing behind.
    /// - Returns: how many rows were removed.
    public static func purge(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run("DELETE FROM passkey_challenges WHERE expires_at < ?", [.integer(now)])
    }
}

/// Too many sign-in challenges issued to nobody are waiting, from this client or from all
/// (``PasskeyChallenges/limits``): the surface answers 503 and the browser tries again once some expire.
public struct PasskeyChallengesFull: Error, Sendable, Equatable {}
