import Storage

/// An identity at a provider linked to one account: the pair (issuer, subject), never an email.
public struct SignInIdentity: Sendable, Equatable {
    /// Whose accounts: an owner's or a Pro user's.
    public var surface: SignInProvider.Surface
    /// The provider's issuer (GitHub: its web URL).
    public var issuer: String
    /// The person's identifier at the provider (the id_token's `sub`; GitHub: the user's numeric id).
    public var subject: String
    /// The name of the provider it was linked through.
    public var provider: String
    /// The owner's or the Pro user's id.
    public var account: String
    /// The provider's verified email when it was linked, for the settings page; never used to find an account.
    public var email: String?
    /// When it was linked, Unix seconds.
    public var createdAt: Int64
    /// When it last signed in, Unix seconds; nil before the first time.
    public var lastUsedAt: Int64?
}

/// What linking an identity came to.
public enum SignInLinkOutcome: Sendable, Equatable {
    /// The identity is now linked to the account.
    case linked
    /// It already was, to this account.
    case alreadyLinked
    /// It is linked to another account of the same family, and stays so: nothing changed.
    case linkedToAnother
}

/// The identities linked to owners and Pro users (`signin_identities`, issue 54 item 4): a known identity signs into
/// its account; the store never looks an account up by email. Within one family of accounts an identity is linked to
/// one account at most; a link goes when its account is deleted (the table's foreign keys cascade).
public struct SignInIdentityStore: Sendable {
    let database: any SQLDatabase
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - database: a database with migration 0049 applied.
    ///   - clock: Unix seconds.
    public init(database: any SQLDatabase, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.clock = clock
    }

    /// The column of the account's id for `surface`.
    static func accountColumn(_ surface: SignInProvider.Surface) -> String {
        switch surface {
        case .owners: return "owner_id"
        case .pro: return "pro_user_id"
        }
    }

    /// Links the identity (`issuer`, `subject`) to `account`, unless it is linked already (to it or another).
    /// - Parameters:
    ///   - email: the provider's verified email, for the settings page.
    /// - Throws: the database's errors, among them a foreign-key violation for an account that does not exist.
    public func link(
        surface: SignInProvider.Surface, issuer: String, subject: String, provider: String, account: String,
        email: String?
    ) async throws -> SignInLinkOutcome {
        let column = Self.accountColumn(surface)
        let now = clock()
        let key: [SQLValue] = [.text(surface.rawValue), .text(issuer), .text(subject)]
        return try await database.write { connection in
            try connection.transaction {
                let inserted = try connection.run(
                    """
                    INSERT INTO signin_identities (surface, issuer, subject, provider, \(column), email, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (surface, issuer, subject) DO NOTHING
                    """, key + [.text(provider), .text(account), email.map(SQLValue.text) ?? .null, .integer(now)])
                if inserted > 0 { return .linked }
                let holder = try connection.query(
                    "SELECT \(column) FROM signin_identities WHERE surface = ? AND issuer = ? AND subject = ?", key
                ).first?.text(column)
                return holder == account ? .alreadyLinked : .linkedToAnother
            }
        }
    }

    /// The account the identity (`issuer`, `subject`) signs into, its last use recorded; nil when it is not linked.
    public func signIn(surface: SignInProvider.Surface, issuer: String, subject: String) async throws -> String? {
        let column = Self.accountColumn(surface)
        let now = clock()
        let key: [SQLValue] = [.text(surface.rawValue), .text(issuer), .text(subject)]
        return try await database.write { connection in
            try connection.transaction {
                guard
                    let account = try connection.query(
                        "SELECT \(column) FROM signin_identities WHERE surface = ? AND issuer = ? AND subject = ?", key
                    ).first?.text(column)
                else { return nil }
                try connection.run(
                    "UPDATE signin_identities SET last_used_at = ? WHERE surface = ? AND issuer = ? AND subject = ?",
                    [.integer(now)] + key)
                return account
            }
        }
    }

    /// The account the identity (`issuer`, `subject`) is linked to, read only (its last use is not recorded: the
    /// caller may not sign it in); nil when it is not linked.
    public func linkedAccount(surface: SignInProvider.Surface, issuer: String, subject: String) async throws -> String? {
        let column = Self.accountColumn(surface)
        return try await database.read { connection in
            try connection.query(
                "SELECT \(column) FROM signin_identities WHERE surface = ? AND issuer = ? AND subject = ?",
                [.text(surface.rawValue), .text(issuer), .text(subject)]
            ).first?.text(column)
        }
    }

    /// The identities linked to `account`, oldest first.
    public func identities(surface: SignInProvider.Surface, account: String) async throws -> [SignInIdentity] {
        let column = Self.accountColumn(surface)
        return try await database.read { connection in
            try connection.query(
                """
                SELECT issuer, subject, provider, email, created_at, last_used_at FROM signin_identities
                WHERE surface = ? AND \(column) = ? ORDER BY created_at, issuer, subject
                """, [.text(surface.rawValue), .text(account)]
            ).compactMap { row in
                guard let issuer = row.text("issuer"), let subject = row.text("subject"),
                    let provider = row.text("provider"), let created = row.int("created_at")
                else { return nil }
                return SignInIdentity(
                    surface: surface, issuer: issuer, subject: subject, provider: provider, account: account,
                    email: row.text("email"), createdAt: created, lastUsedAt: row.int("last_used_at"))
            }
        }
    }

    /// Unlinks the identity (`issuer`, `subject`) from `account`: only the account it is linked to can unlink it.
    /// Whether it may (it is not the account's last way to sign in) is the caller's rule, which knows the password.
    /// - Returns: whether a link was removed.
    public func unlink(
        surface: SignInProvider.Surface, account: String, issuer: String, subject: String
    ) async throws -> Bool {
        let column = Self.accountColumn(surface)
        return try await database.write { connection in
            try connection.run(
                "DELETE FROM signin_identities WHERE surface = ? AND issuer = ? AND subject = ? AND \(column) = ?",
                [.text(surface.rawValue), .text(issuer), .text(subject), .text(account)]) > 0
        }
    }
}
