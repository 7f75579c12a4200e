import Storage

/// What a provider sign-in needs to know of the Pro user holding an email, to decide whether an identity may be linked
/// to them (issue 54 item 4): the user, whether their email is proven (`email_verified_at`, migration 0052) and whether
/// they have a password to prove a link with.
public struct ProUserLinkCandidate: Sendable, Equatable {
    /// The Pro user's id.
    public var id: String
    /// Their email, as stored (lower-cased).
    public var email: String
    /// Whether their email is proven.
    public var emailVerified: Bool
    /// Whether they have a password (a user a provider made has none).
    public var hasPassword: Bool
}

/// The Pro users a sign-in provider makes and links (issue 54 items 4 and 5): a user made by a provider has no
/// password (`POST /api/user/login` and the web inbox's password sign-in refuse them as a wrong password) and makes
/// `tm_pro_` tokens in the Pro dashboard, as Mail.td's docs say of its Google and GitHub sign-ups.
extension MailboxAccountService {
    /// The Pro user whose email is `email` (normalized here); nil when nobody has it or it is not an address.
    /// - Throws: storage errors.
    public func proUserLinkCandidate(email: String) async throws -> ProUserLinkCandidate? {
        guard let email = Self.normalizedProEmail(email) else { return nil }
        return try await store.proUserLinkCandidate(key: "email", email)
    }

    /// ``proUserLinkCandidate(email:)`` by the user's id.
    /// - Throws: storage errors.
    public func proUserLinkCandidate(id: String) async throws -> ProUserLinkCandidate? {
        try await store.proUserLinkCandidate(key: "id", id)
    }

    /// Creates a Pro user without a password, as a provider's first sign-in does (`_ALLOW_SIGNUP`): active, with the
    /// operator's default limits, their email (the provider's verified one) proven as they are made.
    /// - Throws: ``ProUserCreationError`` (`.invalidEmail`, `.emailTaken`); storage errors.
    public func createProUserWithoutPassword(email: String) async throws -> ProUserSummary {
        guard let email = Self.normalizedProEmail(email) else { throw ProUserCreationError.invalidEmail }
        let user = ProUserRecord(
            id: MailboxIdentifiers.uuid(), email: email, passwordHash: "",
            maxAccounts: Int64(configuration.defaultProMaxAccounts), maxDomains: Int64(configuration.defaultProMaxDomains),
            status: "active", tokenEpoch: 0, createdAt: clock())
        do {
            try await store.insert(user, emailVerifiedAt: user.createdAt)
        } catch let error as StorageError where error.code == .constraintUnique {
            throw ProUserCreationError.emailTaken
        }
        return ProUserSummary(
            id: user.id, email: email, maxAccounts: Int(user.maxAccounts), accountCount: 0, createdAt: user.createdAt)
    }

    /// Records that Pro user `id`'s email is proven, when it is still `email` (a provider vouched for that address
    /// while the user proved the account); a proven email keeps the first time.
    /// - Throws: storage errors.
    public func markProUserEmailVerified(id: String, email: String) async throws {
        guard let email = Self.normalizedProEmail(email) else { return }
        try await store.markProUserEmailVerified(id: id, email: email, now: clock())
    }

    /// Removes Pro user `id` when they have no password: the undoing of ``createProUserWithoutPassword(email:)`` when
    /// the identity it was made for could not be linked to them (another instance linked it first).
    /// - Returns: whether a user was removed.
    /// - Throws: storage errors.
    @discardableResult
    public func removeProUserWithoutPassword(id: String) async throws -> Bool {
        try await store.removeProUserWithoutPassword(id: id)
    }
}

extension MailboxStore {
    /// The link candidate whose `key` column (`id` or `email`) is `value`.
    func proUserLinkCandidate(key: String, _ value: String) async throws -> ProUserLinkCandidate? {
        precondition(key == "id" || key == "email")
        return try await database.read { connection in
            try connection.query(
                "SELECT id, email, password_hash, email_verified_at FROM mailbox_pro_users WHERE \(key) = ?",
                [.text(value)]
            ).first.flatMap { row in
                guard let id = row.text("id"), let email = row.text("email") else { return nil }
                return ProUserLinkCandidate(
                    id: id, email: email, emailVerified: row.int("email_verified_at") != nil,
                    hasPassword: !(row.text("password_hash") ?? "").isEmpty)
            }
        }
    }

    func markProUserEmailVerified(id: String, email: String, now: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                UPDATE mailbox_pro_users SET email_verified_at = ?
                    WHERE id = ? AND email = ? AND email_verified_at IS NULL
                """, [.integer(now), .text(id), .text(email)])
        }
    }

    func removeProUserWithoutPassword(id: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM mailbox_pro_users WHERE id = ? AND password_hash = ''", [.text(id)]) > 0
        }
    }
}
