import Storage

/// One row of `remote_users` (migrations/sqlite/0004_remote.sql).
struct RemoteUser: Sendable, Equatable {
    var email: String
    var passwordHashURL: String
    var tokenVersion: Int64
}

/// The users of this surface, by their email as the service normalised it (``EmailAddress/key(_:)``), compared
/// exactly: SQLite's column compares with COLLATE NOCASE (ASCII case only), and PostgreSQL's `=` is exact; its
/// `lower(email)`, which follows Unicode's rules and so folds KELVIN SIGN onto `k`, only keeps one row per email in
/// its unique index (issue 66).
public struct RemoteUserStore: Sendable {
    let database: any SQLDatabase

    /// How a row is found by its email: exactly, in the normalised form.
    private var emailIs: String { "email = ?" }

    /// How many users there are, read on `connection` (the start-up check for lost keys).
    /// - Throws: storage errors.
    public static func accountRows(_ connection: any SQLConnection) throws -> Int64 {
        try connection.query("SELECT COUNT(*) AS n FROM remote_users").first?.int("n") ?? 0
    }

    /// The user registered with `email` (normalised), if any.
    func find(email: String) async throws -> RemoteUser? {
        let emailIs = emailIs
        return try await database.read { connection in
            try connection.query(
                "SELECT email, password_hash_url, token_version FROM remote_users WHERE \(emailIs)", [.text(email)]
            ).first.flatMap(RemoteUserStore.user)
        }
    }

    /// Inserts a user; false when the email is taken.
    func insert(email: String, passwordHashURL: String, now: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "INSERT INTO remote_users (email, password_hash_url, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(email), .text(passwordHashURL), .integer(now)]) == 1
        }
    }

    /// Increments the token version when it still is `expected` (nil: whatever it is); returns the
    /// user after the change, or nil when no row matched (unknown user or an already superseded token).
    func bumpTokenVersion(email: String, expected: Int64?) async throws -> RemoteUser? {
        let emailIs = emailIs
        return try await database.write { connection in
            let sql: String
            var bindings: [SQLValue] = [.text(email)]
            if let expected {
                sql = "UPDATE remote_users SET token_version = token_version + 1 WHERE \(emailIs) AND token_version = ?"
                bindings.append(.integer(expected))
            } else {
                sql = "UPDATE remote_users SET token_version = token_version + 1 WHERE \(emailIs)"
            }
            guard try connection.run(sql, bindings) == 1 else { return nil }
            return try connection.query(
                "SELECT email, password_hash_url, token_version FROM remote_users WHERE \(emailIs)", [.text(email)]
            ).first.flatMap(RemoteUserStore.user)
        }
    }

    private static func user(_ row: SQLRow) -> RemoteUser? {
        guard let email = row.text("email"), let url = row.text("password_hash_url"),
            let version = row.int("token_version")
        else { return nil }
        return RemoteUser(email: email, passwordHashURL: url, tokenVersion: version)
    }
}
