/// One mailbox account row.
struct MailboxAccountRecord: Sendable, Equatable {
    var id: String
    var address: String
    /// Argon2id hash of the password for a row stored before `auth_key`; `""` once `authVerifier` is set.
    var passwordHash: String
    /// `SHA-256(auth_key)` (``MailboxAuthKey``); nil for a row stored before `auth_key` and not yet upgraded.
    var authVerifier: [UInt8]?
    /// The Pro user who created it, nil for a free account.
    var ownerID: String?
    var quota: Int64
    var used: Int64
    /// Bumped by a password reset; a mailbox token is valid only while its `ver` equals it.
    var tokenEpoch: Int64
    var createdAt: Int64
}

/// One Pro user row.
struct ProUserRecord: Sendable, Equatable {
    var id: String
    var email: String
    /// Argon2id, encoded; `""` for a user a sign-in provider made, who has no password (migration 0052).
    var passwordHash: String
    var maxAccounts: Int64
    var maxDomains: Int64
    var status: String
    /// A Pro JWT is valid only while its `ver` equals it.
    var tokenEpoch: Int64
    var createdAt: Int64

    /// The hash a password is checked against: nil for a user without a password, whom the hasher then refuses at
    /// the cost of a wrong password (its decoy), so that `POST /api/user/login` tells nobody who has none.
    var verifiablePasswordHash: String? { passwordHash.isEmpty ? nil : passwordHash }
}

/// One Pro API token row (the token itself is never stored, only its SHA-256 digest).
struct ProTokenRecord: Sendable, Equatable {
    var id: String
    var userID: String
    var name: String
    var digest: [UInt8]
    var createdAt: Int64
    var lastUsedAt: Int64?
    var revokedAt: Int64?
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
