/// What one token response hands out, decided before anything is written: the refresh token (the client gets it,
/// the table its digest) and the access token's `jti` and expiry (its `oauth_access_tokens` row).
struct OAuthIssue: Sendable {
    let refreshToken: String
    let refreshExpiresAt: Int64
    let jti: String
    let accessExpiresAt: Int64
}
