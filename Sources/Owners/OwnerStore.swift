import AuthCrypto
import BrowserPages
import ClientAddress
import Foundation
import PasswordHashing
import Storage

/// The `owners` and `owner_signin_failures` tables (migrations 0016 and 0040): create, list and remove owners, and sign in
/// with backoff per email and client address and, past a higher bar, per email (``SignInBackoff``).
///
/// `owner_signin_failures` keys both counts by a digest: the email's (SHA-256 of the lower-cased email, the email-wide
/// count) and the pair's (SHA-256 of `client\0<address key>\0<email>`).
public struct OwnerStore: Sendable {
    let database: any SQLDatabase
    let hasher: PasswordHasher
    let throttle: SignInThrottle
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - database: a database with migration 0016 applied.
    ///   - hasher: Argon2id on the worker pool.
    ///   - backoff: how failures slow an email.
    ///   - clock: Unix seconds.
    public init(
        database: any SQLDatabase, hasher: PasswordHasher, backoff: SignInBackoff = SignInBackoff(),
        clock: @escaping @Sendable () -> Int64
    ) {
        self.database = database
        self.hasher = hasher
        throttle = SignInThrottle(database: database, backoff: backoff)
        self.clock = clock
    }

    /// Creates an owner.
    /// - Parameter approved: true when the operator makes the owner (`postern owner create`): approved as they are
    ///   made (``OwnerApprovals``), and their email proven (the operator answers for it, migration 0051). False (the
    ///   default) for sign-up: the owner waits for the operator's approval, their email unproven.
    /// - Throws: ``OwnerError`` for a bad email or password or a taken email; storage and pool errors.
    public func create(email: String, password: String, approved: Bool = false) async throws -> Owner {
        guard let email = OwnerCredentials.normalizedEmail(email) else { throw OwnerError.invalidEmail }
        guard OwnerCredentials.acceptable(password) else { throw OwnerError.weakPassword }
        let hash = try await hasher.hash(password)
        let now = clock()
        let owner = Owner(
            id: UUID().uuidString.lowercased(), email: email, createdAt: now, approvedAt: approved ? now : nil)
        do {
            _ = try await database.write { connection in
                try connection.run(
                    """
                    INSERT INTO owners (id, email, password_hash, created_at, approved_at, email_verified_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(owner.id), .text(owner.email), .text(hash), .integer(owner.createdAt),
                        owner.approvedAt.map(SQLValue.integer) ?? .null, owner.approvedAt.map(SQLValue.integer) ?? .null,
                    ])
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw OwnerError.emailTaken
        }
        return owner
    }

    /// Signs in: ``OwnerSignIn/slowDown(retryAfter:)`` while the email is blocked for `client` or for everyone (the
    /// password is not checked); otherwise Argon2id verification against the stored hash, or against a decoy for an
    /// unknown email so that it costs the same; a failure counts against the email and the pair, known or not.
    /// - Parameter client: the client's address key, as the request context resolves it (trusted proxies honoured).
    /// - Throws: storage and pool errors.
    public func signIn(email: String, password: String, client: ClientAddressKey) async throws -> OwnerSignIn {
        let now = clock()
        guard let email = OwnerCredentials.normalizedEmail(email),
            password.utf8.count <= OwnerCredentials.maximumPasswordBytes
        else { return .refused }
        let keys = SignInThrottle.keys(name: email, client: client)
        let found = try await database.read { connection -> (blockedUntil: Int64, owner: (Owner, String)?) in
            let blocked = try throttle.blockedUntil(keys, in: connection)
            let row = try connection.query(
                """
                SELECT id, email, password_hash, created_at, approved_at, password_removed_at FROM owners
                WHERE email = ?
                """, [.text(email)]
            ).first
            // A removed password signs nobody in: the decoy is checked instead, at the same cost.
            guard row?.int("password_removed_at") == nil else { return (blocked, nil) }
            return (blocked, row.flatMap(Self.ownerWithHash))
        }
        if found.blockedUntil > now { return .slowDown(retryAfter: found.blockedUntil - now) }
        if try await hasher.verify(password, against: found.owner?.1), let owner = found.owner?.0 {
            try await throttle.succeeded(keys)
            return .signedIn(owner)
        }
        try await throttle.failed(keys, now: now)
        return .refused
    }

    /// Whether the owner with id `id` has a password: false once they removed it, for an owner a sign-in provider
    /// made (issue 54: an empty hash), or when there is no such owner.
    public func hasPassword(ownerID id: String) async throws -> Bool {
        try await database.read { connection in
            try connection.query(
                "SELECT 1 AS one FROM owners WHERE id = ? AND password_hash <> '' AND password_removed_at IS NULL",
                [.text(id)]
            ).first != nil
        }
    }

    /// What ``removePassword(of:password:client:)`` did.
    public enum PasswordRemoval: Equatable, Sendable {
        /// The hash is emptied.
        case removed
        /// `password` is not the owner's (or they have none): counted as a failed sign-in.
        case wrongPassword
        /// Not tried: the owner's email is blocked for this client or for everyone, as the sign-in is.
        case slowDown(retryAfter: Int64)
    }

    /// Removes `owner`'s password once `password` proves it is theirs: the hash is emptied and only passkeys (or
    /// linked providers) sign them in (the caller makes sure they hold one). The password is checked under the
    /// password sign-in's backoff, by the same keys (the email, and the email with `client`): a session is no way
    /// around it. The operator's `set-password` gives one back.
    /// - Throws: storage and pool errors.
    public func removePassword(of owner: Owner, password: String, client: ClientAddressKey) async throws
        -> PasswordRemoval
    {
        let now = clock()
        let attempt = try await throttle.attempt(SignInThrottle.keys(name: owner.email, client: client), now: now) {
            guard password.utf8.count <= OwnerCredentials.maximumPasswordBytes else { return false }
            let hash = try await database.read { connection in
                try connection.query(
                    "SELECT password_hash FROM owners WHERE id = ? AND password_removed_at IS NULL", [.text(owner.id)]
                ).first?.text("password_hash")
            }
            return try await hasher.verify(password, against: hash) && hash != nil
        }
        switch attempt {
        case .slowed(let seconds): return .slowDown(retryAfter: seconds)
        case .failed: return .wrongPassword
        case .passed: break
        }
        let removed = try await database.write { connection in
            try connection.run(
                """
                UPDATE owners SET password_hash = '', password_removed_at = ?
                WHERE id = ? AND password_removed_at IS NULL
                """, [.integer(now), .text(owner.id)]) == 1
        }
        return removed ? .removed : .wrongPassword
    }

    /// The owner with id `id`, if any.
    public func owner(id: String) async throws -> Owner? {
        try await database.read { connection in
            try connection.query("SELECT id, email, created_at, approved_at FROM owners WHERE id = ?", [.text(id)])
                .first.flatMap(Self.owner)
        }
    }

    /// How many owners there are, read on `connection` (the start-up check for lost keys).
    /// - Throws: storage errors.
    public static func accountRows(_ connection: any SQLConnection) throws -> Int64 {
        try connection.query("SELECT COUNT(*) AS n FROM owners").first?.int("n") ?? 0
    }

    /// Every owner, oldest first.
    public func list() async throws -> [Owner] {
        try await database.read { connection in
            try connection.query("SELECT id, email, created_at, approved_at FROM owners ORDER BY created_at, email")
                .compactMap(Self.owner)
        }
    }

    /// Sets the password of the owner with `email` (one they removed included) and ends every browser session they
    /// have, as a reset would: a browser signed in with the old password is signed out. Their app grants stay (revocable on `/owner`).
    /// - Returns: false when no owner has that email.
    /// - Throws: ``OwnerError/weakPassword``; storage and pool errors.
    public func setPassword(email: String, password: String) async throws -> Bool {
        guard OwnerCredentials.acceptable(password) else { throw OwnerError.weakPassword }
        guard let email = OwnerCredentials.normalizedEmail(email) else { return false }
        let hash = try await hasher.hash(password)
        return try await database.write { connection in
            try connection.transaction {
                guard let id = try Self.ownerID(email: email, connection) else { return false }
                try connection.run(
                    "UPDATE owners SET password_hash = ?, password_removed_at = NULL WHERE id = ?",
                    [.text(hash), .text(id)])
                try connection.run("DELETE FROM owner_sessions WHERE owner_id = ?", [.text(id)])
                return true
            }
        }
    }

    /// Removes the owner with `email`: their sessions, inbox links and grants go with them (the inboxes stay).
    /// - Returns: false when no owner has that email.
    public func remove(email: String) async throws -> Bool {
        guard let email = OwnerCredentials.normalizedEmail(email) else { return false }
        return try await database.write { connection in
            try connection.run("DELETE FROM owners WHERE email = ?", [.text(email)]) > 0
        }
    }

    /// The id of the owner with `email` (already normalized, ``OwnerCredentials/normalizedEmail(_:)``), read on
    /// `connection`; nil when no owner has it.
    /// - Throws: storage errors.
    public static func ownerID(email: String, _ connection: any SQLConnection) throws -> String? {
        try connection.query("SELECT id FROM owners WHERE email = ?", [.text(email)]).first?.text("id")
    }

    /// The email of each owner among `ids` that exists, read on `connection` (in the caller's snapshot).
    /// - Throws: storage errors.
    public static func emails(ids: some Collection<String>, _ connection: any SQLConnection) throws
        -> [String: String]
    {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        var emails: [String: String] = [:]
        for row in try connection.query("SELECT id, email FROM owners WHERE id IN (\(marks))", ids.map(SQLValue.text)) {
            if let id = row.text("id"), let email = row.text("email") { emails[id] = email }
        }
        return emails
    }

    static func owner(_ row: SQLRow) -> Owner? {
        guard let id = row.text("id"), let email = row.text("email"), let created = row.int("created_at") else {
            return nil
        }
        return Owner(id: id, email: email, createdAt: created, approvedAt: row.int("approved_at"))
    }

    /// The owner and their password hash; nil for an owner without a password (made by a sign-in provider, hash ''),
    /// whom the password sign-in then refuses as it refuses an unknown email: against the decoy, at the same cost.
    private static func ownerWithHash(_ row: SQLRow) -> (Owner, String)? {
        guard let owner = owner(row), let hash = row.text("password_hash"), !hash.isEmpty else { return nil }
        return (owner, hash)
    }
}
