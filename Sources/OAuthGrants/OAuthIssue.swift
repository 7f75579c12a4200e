/// What one token response hands out, decided before anything is written: the refresh token (the client gets it,
/// the table its digest) and the access token's `jti` and expiry (its `oauth_access_tokens` row).
public struct OAuthIssue: Sendable {
    /// The refresh token handed to the client; only its digest is stored.
    public let refreshToken: String
    /// When the refresh token expires, Unix seconds.
    public let refreshExpiresAt: Int64
    /// The access token's `jti`.
    public let jti: String
    /// When the access token expires, Unix seconds.
    public let accessExpiresAt: Int64

    /// What one token response hands out.
    public init(refreshToken: String, refreshExpiresAt: Int64, jti: String, accessExpiresAt: Int64) {
        self.refreshToken = refreshToken
        self.refreshExpiresAt = refreshExpiresAt
        self.jti = jti
        self.accessExpiresAt = accessExpiresAt
    }
}
