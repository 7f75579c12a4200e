import AuthCrypto
import ClientAddress
import Storage

/// The sign-in backoff of ``SignInBackoff`` over its table (`owner_signin_failures`, named for the owners who had it
/// first), for any page family that signs people in by a name and a secret: the owner sign-in, and the web inbox's
/// (each in its own namespace, so that failures at one never slow the other). Only SHA-256 digests of the names are
/// stored.
public struct SignInThrottle: Sendable {
    let database: any SQLDatabase
    let backoff: SignInBackoff

    /// The two counters one attempt moves: the name's from every address, and the name's from one client address.
    public struct Keys: Sendable, Equatable {
        let name: [UInt8]
        let pair: [UInt8]
    }

    /// - Parameters:
    ///   - database: a database with migration 0016 applied.
    ///   - backoff: how failures slow a name.
    public init(database: any SQLDatabase, backoff: SignInBackoff) {
        self.database = database
        self.backoff = backoff
    }

    /// The counters of `name` (normalised by the caller) from `client`. The owners' namespace is empty (their digests
    /// are those of their emails, as stored before this type); another family names its own.
    public static func keys(name: String, client: ClientAddressKey, namespace: String = "") -> Keys {
        let prefix = namespace.isEmpty ? "" : namespace + "\u{0}"
        return Keys(
            name: SHA256.hash(Array((prefix + name).utf8)),
            pair: SHA256.hash(Array("\(prefix)client\u{0}\(client.description)\u{0}\(name)".utf8)))
    }

    /// Until when (Unix seconds) `keys` are blocked; 0 or a past time when they are not.
    public func blockedUntil(_ keys: Keys, in connection: any SQLConnection) throws -> Int64 {
        try connection.query(
            "SELECT blocked_until FROM owner_signin_failures WHERE email_digest IN (?, ?)",
            [.blob(keys.name), .blob(keys.pair)]
        ).compactMap { $0.int("blocked_until") }.max() ?? 0
    }

    /// Until when (Unix seconds) `keys` are blocked.
    public func blockedUntil(_ keys: Keys) async throws -> Int64 {
        try await database.read { try blockedUntil(keys, in: $0) }
    }

    /// What one attempt under the backoff came to (``attempt(_:now:_:)``).
    public enum Attempt: Sendable, Equatable {
        /// The secret was right; the counts are forgotten.
        case passed
        /// The secret was wrong; both counts grew.
        case failed
        /// Not tried: the name is blocked for this client or for everyone, for this many more seconds.
        case slowed(retryAfter: Int64)
    }

    /// One attempt at `now`: ``Attempt/slowed(retryAfter:)`` without calling `check` while `keys` are blocked;
    /// otherwise `check`'s answer (whether the secret was right), counted as a success or a failure.
    /// - Throws: `StorageError`, or what `check` throws (then nothing is counted).
    public func attempt(_ keys: Keys, now: Int64, _ check: () async throws -> Bool) async throws -> Attempt {
        let blocked = try await blockedUntil(keys)
        if blocked > now { return .slowed(retryAfter: blocked - now) }
        guard try await check() else {
            try await failed(keys, now: now)
            return .failed
        }
        try await succeeded(keys)
        return .passed
    }

    /// A success: forgets the counts of the name and of that address.
    public func succeeded(_ keys: Keys) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "DELETE FROM owner_signin_failures WHERE email_digest IN (?, ?)", [.blob(keys.name), .blob(keys.pair)])
        }
    }

    /// A failure at `now`: both counts grow, and each blocks for its delay.
    public func failed(_ keys: Keys, now: Int64) async throws {
        let backoff = backoff
        try await recordFailure(keys.pair, now: now, delay: backoff.delay(afterFailures:))
        try await recordFailure(keys.name, now: now, delay: backoff.emailDelay(afterFailures:))
    }

    /// Deletes the counts that block nothing any more and are a day old; returns how many went. Run every minute with
    /// the owners' purge (`OwnerPurge`), which sheds the table for every family.
    public static func purge(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run(
            "DELETE FROM owner_signin_failures WHERE blocked_until <= ? AND updated_at < ?",
            [.integer(now), .integer(now - 86_400)])
    }

    private func recordFailure(
        _ digest: [UInt8], now: Int64, delay: @escaping @Sendable (Int64) -> Int64
    ) async throws {
        _ = try await database.write { connection in
            try connection.transaction {
                try connection.run(
                    """
                    INSERT INTO owner_signin_failures (email_digest, failures, blocked_until, updated_at)
                    VALUES (?, 1, 0, ?)
                    ON CONFLICT (email_digest) DO UPDATE
                    SET failures = owner_signin_failures.failures + 1, updated_at = excluded.updated_at
                    """,
                    [.blob(digest), .integer(now)])
                let failures = try connection.query(
                    "SELECT failures FROM owner_signin_failures WHERE email_digest = ?", [.blob(digest)]
                ).first?.int("failures") ?? 1
                try connection.run(
                    "UPDATE owner_signin_failures SET blocked_until = ? WHERE email_digest = ?",
                    [.integer(now + delay(failures)), .blob(digest)])
            }
        }
    }
}
