import Foundation
import Storage

/// What the provider sign-in needs to know of the owner holding an email (``OwnerStore/linkCandidate(email:)``), to
/// decide whether an identity may be linked to them (``OwnerProviderLinking``).
public struct OwnerLinkCandidate: Sendable, Equatable {
    /// The owner.
    public var owner: Owner
    /// Whether their email is proven (`email_verified_at`, migration 0051).
    public var emailVerified: Bool
    /// Whether they have a password (an owner a provider made has none).
    public var hasPassword: Bool

    public init(owner: Owner, emailVerified: Bool, hasPassword: Bool) {
        self.owner = owner
        self.emailVerified = emailVerified
        self.hasPassword = hasPassword
    }
}

extension OwnerStore {
    /// The owner whose email is `email` (normalized here), with whether it is proven and whether they have a
    /// password; nil when no owner has it or it is not an address.
    /// - Throws: storage errors.
    public func linkCandidate(email: String) async throws -> OwnerLinkCandidate? {
        guard let email = OwnerCredentials.normalizedEmail(email) else { return nil }
        return try await database.read { connection in
            try connection.query(
                """
                SELECT id, email, created_at, approved_at, email_verified_at, password_hash FROM owners WHERE email = ?
                """, [.text(email)]
            ).first.flatMap(Self.candidate)
        }
    }

    /// ``linkCandidate(email:)`` by the owner's id.
    /// - Throws: storage errors.
    public func linkCandidate(id: String) async throws -> OwnerLinkCandidate? {
        try await database.read { connection in try Self.linkCandidate(id: id, connection) }
    }

    /// ``linkCandidate(id:)`` on `connection`: for a read made with others in one transaction (the token endpoint's
    /// code exchange on an event loop's own connection, SQLite).
    /// - Throws: storage errors.
    public static func linkCandidate(id: String, _ connection: any SQLConnection) throws -> OwnerLinkCandidate? {
        try connection.query(
            """
            SELECT id, email, created_at, approved_at, email_verified_at, password_hash FROM owners WHERE id = ?
            """, [.text(id)]
        ).first.flatMap(Self.candidate)
    }

    /// Creates an owner without a password, as a sign-in provider's first sign-in does (`_ALLOW_SIGNUP`): their email
    /// is the provider's verified one, so it is proven as they are made; they wait for the operator's approval as a
    /// sign-up does. The password sign-in refuses them until the operator sets a password (`postern owner
    /// set-password`).
    /// - Throws: ``OwnerError/invalidEmail``, ``OwnerError/emailTaken``; storage errors.
    public func createWithoutPassword(email: String) async throws -> Owner {
        guard let email = OwnerCredentials.normalizedEmail(email) else { throw OwnerError.invalidEmail }
        let now = clock()
        let owner = Owner(id: UUID().uuidString.lowercased(), email: email, createdAt: now, approvedAt: nil)
        do {
            _ = try await database.write { connection in
                try connection.run(
                    """
                    INSERT INTO owners (id, email, password_hash, created_at, approved_at, email_verified_at)
                    VALUES (?, ?, '', ?, NULL, ?)
                    """, [.text(owner.id), .text(owner.email), .integer(now), .integer(now)])
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw OwnerError.emailTaken
        }
        return owner
    }

    /// Records that the owner `id`'s email is proven, when it is still `email` (a provider vouched for that address);
    /// an owner whose email is proven already keeps the first time.
    /// - Throws: storage errors.
    public func markEmailVerified(id: String, email: String) async throws {
        let now = clock()
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE owners SET email_verified_at = ? WHERE id = ? AND email = ? AND email_verified_at IS NULL",
                [.integer(now), .text(id), .text(email)])
        }
    }

    /// Removes the owner `id` when they have no password: the undoing of ``createWithoutPassword(email:)`` when the
    /// identity it was made for could not be linked to them (another instance linked it first). An owner who removed
    /// their password (issue 56) is never one of these.
    /// - Returns: whether an owner was removed.
    @discardableResult
    public func removeWithoutPassword(id: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM owners WHERE id = ? AND password_hash = '' AND password_removed_at IS NULL", [.text(id)]) > 0
        }
    }

    private static func candidate(_ row: SQLRow) -> OwnerLinkCandidate? {
        guard let owner = owner(row) else { return nil }
        return OwnerLinkCandidate(
            owner: owner, emailVerified: row.int("email_verified_at") != nil,
            hasPassword: !(row.text("password_hash") ?? "").isEmpty)
    }
}
