import EmailAddresses
import MIME
import Storage

/// Why `createProUser` refused.
public struct ProUserCreationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A one-line reason for the operator.
    public let description: String

    /// The email is not `something@something`.
    public static let invalidEmail = ProUserCreationError(description: "the email is not a valid address")
    /// A Pro user with this email exists.
    public static let emailTaken = ProUserCreationError(description: "a Pro user with this email already exists")
    /// `maxAccounts` is negative.
    public static let invalidMaxAccounts = ProUserCreationError(description: "max accounts must be 0 or more")
    /// `maxDomains` is negative.
    public static let invalidMaxDomains = ProUserCreationError(description: "max domains must be 0 or more")
}

extension MailboxAccountService {
    /// Creates a Pro user (`postern pro create`), as the hosted service's dashboard does.
    /// - Parameters:
    ///   - email: the login; stored lower-cased.
    ///   - password: at least 6 characters, at most 4 KiB; stored as Argon2id.
    ///   - maxAccounts: how many accounts the user may own; nil uses `defaultProMaxAccounts`.
    ///   - maxDomains: how many custom domains the user may add; nil uses `defaultProMaxDomains`.
    /// - Returns: the new user's summary.
    /// - Throws: `ProUserCreationError`, `MailboxError` (`.passwordTooShort`, `.passwordTooLong`),
    ///   `StorageError`, `WorkerPoolError`.
    @discardableResult
    public func createProUser(
        email: String, password: String, maxAccounts: Int? = nil, maxDomains: Int? = nil
    ) async throws -> ProUserSummary {
        guard let email = Self.normalizedProEmail(email) else { throw ProUserCreationError.invalidEmail }
        let maxAccounts = maxAccounts ?? configuration.defaultProMaxAccounts
        guard maxAccounts >= 0 else { throw ProUserCreationError.invalidMaxAccounts }
        let maxDomains = maxDomains ?? configuration.defaultProMaxDomains
        guard maxDomains >= 0 else { throw ProUserCreationError.invalidMaxDomains }
        try PasswordPolicy.validateNew(password)
        let user = ProUserRecord(
            id: MailboxIdentifiers.uuid(), email: email, passwordHash: try await hasher.hash(password),
            maxAccounts: Int64(maxAccounts), maxDomains: Int64(maxDomains), status: "active", tokenEpoch: 0, createdAt: clock())
        do {
            try await store.insert(user)
        } catch let error as StorageError where error.code == .constraintUnique {
            throw ProUserCreationError.emailTaken
        }
        return ProUserSummary(
            id: user.id, email: email, maxAccounts: maxAccounts, accountCount: 0, createdAt: user.createdAt)
    }

    /// A Pro user's login as stored: trimmed, then normalised as every address is (``EmailAddress``: ASCII case folded,
    /// the domain's IDNA form); nil unless it is an address without white space, 254 bytes at most.
    public static func normalizedProEmail(_ text: String) -> String? {
        let trimmed = text.trimmingSpaces()
        guard trimmed.utf8.count <= 254, !trimmed.contains(where: { $0.isWhitespace }) else { return nil }
        return EmailAddress.normalized(trimmed)
    }

    /// Sets the password of the Pro user with `email` (`postern pro set-password`) and moves its token epoch on, so
    /// that every Pro JWT it was given stops working; its API tokens stay.
    /// - Returns: false when no Pro user has that email.
    /// - Throws: `MailboxError` (`.passwordTooShort`, `.passwordTooLong`), `StorageError`, `WorkerPoolError`.
    public func setProUserPassword(email: String, password: String) async throws -> Bool {
        try PasswordPolicy.validateNew(password)
        guard let email = Self.normalizedProEmail(email), try await store.proUser(email: email) != nil else {
            return false
        }
        return try await store.setProUserPassword(email: email, hash: try await hasher.hash(password))
    }

    /// Every Pro user with its account count (`postern pro list`), oldest first.
    public func listProUsers() async throws -> [ProUserSummary] {
        try await store.proUserSummaries()
    }
}
