import AuthCrypto
import SecondFactors
import SignInMethods
import Storage

/// Signed-in browser sessions (`owner_sessions`): the cookie carries 32 random bytes, the table only their SHA-256,
/// so a database read never yields a usable cookie.
public struct OwnerSessions: Sendable {
    let database: any SQLDatabase
    /// Seconds a session lasts from sign-in.
    public let lifetime: Int64
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - database: a database with migration 0016 applied.
    ///   - lifetime: seconds a session lasts from sign-in.
    ///   - clock: Unix seconds.
    public init(database: any SQLDatabase, lifetime: Int64, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.lifetime = lifetime
        self.clock = clock
    }

    /// Opens a session for `ownerID`; returns the cookie value.
    /// - Parameters:
    ///   - provider: the sign-in provider it came in through (its name; migration 0057); nil for a password or
    ///     passkey sign-in.
    ///   - methods: how it was earned (migration 0074), read back by ``methods(token:)`` and ``proof(token:)``.
    public func open(ownerID: String, provider: String? = nil, methods: AuthenticationMethods = []) async throws
        -> String
    {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock()
        _ = try await database.write { [lifetime] connection in
            try connection.run(
                """
                INSERT INTO owner_sessions (token_digest, owner_id, created_at, expires_at, provider, methods)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(Self.digest(token)), .text(ownerID), .integer(now), .integer(now + lifetime),
                    provider.map { .text($0) } ?? .null, .text(methods.stored),
                ])
        }
        return token
    }

    /// The owner whose unexpired session `token` is, if any.
    public func owner(token: String) async throws -> Owner? {
        guard token.utf8.count == 43 else { return nil }
        let now = clock()
        return try await database.read { connection in
            guard let row = try connection.query(
                """
                SELECT o.id, o.email, o.created_at, o.approved_at
                FROM owner_sessions s JOIN owners o ON o.id = s.owner_id
                WHERE s.token_digest = ? AND s.expires_at > ?
                """,
                [.blob(Self.digest(token)), .integer(now)]
            ).first, let id = row.text("id"), let email = row.text("email"), let created = row.int("created_at")
            else { return nil }
            return Owner(id: id, email: email, createdAt: created, approvedAt: row.int("approved_at"))
        }
    }

    /// When the unexpired session `token` was opened (Unix seconds): every owner session is opened by a sign-in that
    /// proved the owner (password, passkey, provider) or by the sign-up that set the password; nil when there is none.
    public func openedAt(token: String) async throws -> Int64? {
        try await unexpired(token, "created_at")?.int("created_at")
    }

    /// How the unexpired session `token` was earned (its `amr`, ``AuthenticationMethods``): empty for a session
    /// opened before migration 0074 or by a sign-up; nil when there is no such session.
    public func methods(token: String) async throws -> AuthenticationMethods? {
        try await unexpired(token, "methods").map { AuthenticationMethods(stored: $0.text("methods") ?? "") }
    }

    /// `column` (or columns) of the unexpired session `token` (a constant of ours, never input); nil when there is
    /// none.
    private func unexpired(_ token: String, _ column: StaticString) async throws -> SQLRow? {
        guard token.utf8.count == 43 else { return nil }
        let now = clock()
        return try await database.read { connection in
            try connection.query(
                "SELECT \(column) FROM owner_sessions WHERE token_digest = ? AND expires_at > ?",
                [.blob(Self.digest(token)), .integer(now)]
            ).first
        }
    }

    /// When and how the unexpired session `token` proved its owner (an OpenID relying party's `auth_time` and `amr`);
    /// nil when there is none. A session that recorded no methods (opened by a sign-up, which set the password) counts
    /// as a password's, or a provider's when it came in through one.
    public func proof(token: String) async throws -> OwnerSessionProof? {
        guard let row = try await unexpired(token, "created_at, provider, methods"),
            let openedAt = row.int("created_at")
        else { return nil }
        let stored = AuthenticationMethods(stored: row.text("methods") ?? "")
        let methods: AuthenticationMethods =
            !stored.isEmpty ? stored : row.text("provider") == nil ? .password : .provider
        return OwnerSessionProof(openedAt: openedAt, methods: methods, digest: Self.digest(token))
    }

    /// Ends session `token` (signing out); nothing when there is none.
    /// - Returns: the sign-in provider the session came in through; nil when it came in otherwise, or there was none.
    @discardableResult
    public func close(token: String) async throws -> String? {
        try await database.write { connection in
            let digest = SQLValue.blob(Self.digest(token))
            let provider = try connection.query(
                "SELECT provider FROM owner_sessions WHERE token_digest = ?", [digest]
            ).first?.text("provider")
            try connection.run("DELETE FROM owner_sessions WHERE token_digest = ?", [digest])
            return provider
        }
    }

    static func digest(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }
}

extension OwnerSessions: SecondFactorSessions {
    /// Ends every browser session of owner `holder` but `keeping`, in the caller's transaction: what turning their
    /// second factor on ends. Their app passwords and OAuth grants stay: each was made on purpose, is listed on
    /// `/owner` and revoked there one by one, and none signs in to `/owner`.
    public func endOthers(holder: String, keeping: String?, _ connection: any SQLConnection) throws {
        try connection.run(
            "DELETE FROM owner_sessions WHERE owner_id = ? AND token_digest <> ?",
            [.text(holder), .blob(keeping.map(Self.digest) ?? [])])
    }
}
