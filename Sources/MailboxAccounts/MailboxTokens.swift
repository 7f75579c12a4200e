import AuthCrypto
import JWT

/// Mints the surface's bearer tokens: mailbox and Pro JWTs (HS256) and `tm_pro_` API tokens.
package struct MailboxTokens: Sendable {
    /// Prefix of a Pro API token.
    static let apiTokenPrefix = "tm_pro_"

    let keys: JWTKeySet
    let issuer: String
    let ttl: Int64

    /// What a bearer of `purpose` (`.mailbox` or `.pro`) must be: HS256, this issuer, at most `ttl` long, no `aud`.
    func policy(_ purpose: JWTPurpose) -> JWTPolicy {
        JWTPolicy(purpose: purpose, issuer: issuer, maximumLifetime: ttl)
    }

    /// A mailbox JWT for `account`: `sub` = account id, `ver` = its token epoch.
    package func mailboxToken(for account: MailboxAccountRecord, now: Int64) throws -> String {
        try sign(subject: account.id, purpose: .mailbox, version: account.tokenEpoch, now: now)
    }

    /// A Pro JWT for `user`: `sub` = user id, `ver` = its token epoch.
    package func proToken(for user: ProUserRecord, now: Int64) throws -> String {
        try sign(subject: user.id, purpose: .pro, version: user.tokenEpoch, now: now)
    }

    /// Verifies a JWT of `purpose` against ``policy(_:)`` (algorithm, signature, issuer, lifetime, expiry with 30 s
    /// leeway); nil when it fails.
    func verify(_ token: String, purpose: JWTPurpose, now: Int64) -> JWTClaims? {
        try? keys.verify(token, policy: policy(purpose), now: now, leeway: 30)
    }

    /// A new Pro API token (`tm_pro_` + base64url of 32 random bytes) and the digest to store.
    static func newAPIToken() -> (token: String, digest: [UInt8]) {
        let token = apiTokenPrefix + Base64URL.encode(SecureRandom.bytes(32))
        return (token, digest(apiToken: token))
    }

    /// What is stored and looked up for an API token: SHA-256 of its UTF-8 text.
    static func digest(apiToken: String) -> [UInt8] {
        SHA256.hash(Array(apiToken.utf8))
    }

    private func sign(subject: String, purpose: JWTPurpose, version: Int64, now: Int64) throws -> String {
        let claims = JWTClaims([
            ("iss", .string(issuer)),
            ("sub", .string(subject)),
            ("iat", .int(now)),
            ("exp", .int(now + ttl)),
            ("jti", .string(SecureRandom.identifier(byteCount: 16))),
            ("pur", .string(purpose.rawValue)),
            ("ver", .int(version)),
        ])
        return try keys.sign(claims, for: purpose)
    }
}
