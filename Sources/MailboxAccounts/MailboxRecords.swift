/// One mailbox account row.
package struct MailboxAccountRecord: Sendable, Equatable {
    package var id: String
    package var address: String
    /// Argon2id hash of the password for a row stored before `auth_key`; `""` once `authVerifier` is set.
    package var passwordHash: String
    /// `SHA-256(auth_key)` (``MailboxAuthKey``); nil for a row stored before `auth_key` and not yet upgraded.
    package var authVerifier: [UInt8]?
    /// The Pro user who created it, nil for a free account.
    package var ownerID: String?
    package var quota: Int64
    package var used: Int64
    /// Bumped by a password reset; a mailbox token is valid only while its `ver` equals it.
    package var tokenEpoch: Int64
    package var createdAt: Int64
}

/// One Pro user row.
package struct ProUserRecord: Sendable, Equatable {
    package var id: String
    package var email: String
    /// Argon2id, encoded; `""` for a user a sign-in provider made, who has no password (migration 0052).
    package var passwordHash: String
    package var maxAccounts: Int64
    package var maxDomains: Int64
    package var status: String
    /// A Pro JWT is valid only while its `ver` equals it.
    package var tokenEpoch: Int64
    package var createdAt: Int64

    /// The hash a password is checked against: nil for a user without a password, whom the hasher then refuses at
    /// the cost of a wrong password (its decoy), so that `POST /api/user/login` tells nobody who has none.
    package var verifiablePasswordHash: String? { passwordHash.isEmpty ? nil : passwordHash }
}

/// One Pro API token row (the token itself is never stored, only its SHA-256 digest).
package struct ProTokenRecord: Sendable, Equatable {
    package var id: String
    package var userID: String
    package var name: String
    package var digest: [UInt8]
    package var createdAt: Int64
    package var lastUsedAt: Int64?
    package var revokedAt: Int64?
}

/// A Pro user as `postern pro list` shows it.
public struct ProUserSummary: Sendable, Equatable {
    /// The Pro user's id (a UUID).
    public let id: String
    /// The login email, lower-cased.
    public let email: String
    /// How many accounts the user may own.
    public let maxAccounts: Int
    /// How many accounts the user owns now.
    public let accountCount: Int
    /// Creation time, Unix seconds.
    public let createdAt: Int64
}
