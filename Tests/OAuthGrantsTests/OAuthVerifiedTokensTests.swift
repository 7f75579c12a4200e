import AuthCrypto
import JWT
import OAuthGrants
import Testing

/// The cache of verified access tokens (issue 86) skips only the signature of bytes it verified before: expiry and the
/// signing key's presence are checked on every hit, nothing refused is kept, and it never holds more than its bound.
@Suite("Verified access tokens: a bounded cache of signatures, never of a token's life")
struct OAuthVerifiedTokensTests {
    static let issuer = "https://postern.test"
    static let now: Int64 = 1_800_000_000

    static func keys(kid: String = "ed-1") throws -> JWTKeySet {
        try JWTKeySet(
            keys: [try .ed25519(kid: kid, privateKey: Ed25519PrivateKey.generate())], activeHMAC: nil, activeRSA: nil,
            activeEdDSA: kid)
    }

    static func token(_ keys: JWTKeySet, jti: String = "j1", ttl: Int64 = 900) throws -> String {
        try keys.sign(
            OAuthAccessClaims(
                ownerID: "owner", clientID: "client", resource: issuer + "/mcp", permissions: .read, jti: jti
            ).claims(issuer: issuer, issuedAt: now, ttl: ttl), for: .oauthAccess)
    }

    @Test("the same bytes verify again from the cache with the same claims; forged and foreign tokens are not kept")
    func hits() throws {
        let keys = try Self.keys()
        let cache = OAuthVerifiedTokens(issuer: Self.issuer, lifetime: 900)
        let token = try Self.token(keys)
        let first = try cache.verify(token, keys: keys, now: Self.now)
        #expect(cache.count == 1 && first.claims.jti == "j1" && first.expiresAt == Self.now + 900)
        let again = try cache.verify(token, keys: keys, now: Self.now + 10)
        #expect(again.claims == first.claims && again.issuedAt == first.issuedAt && again.expiresAt == first.expiresAt)
        let forged = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
        #expect(throws: JWTError.self) { try cache.verify(forged, keys: keys, now: Self.now) }
        let otherIssuer = OAuthVerifiedTokens(issuer: "https://other.test", lifetime: 900)
        #expect(throws: JWTError.self) { try otherIssuer.verify(token, keys: keys, now: Self.now) }
        #expect(cache.count == 1 && otherIssuer.count == 0)
        let off = OAuthVerifiedTokens(issuer: Self.issuer, lifetime: 900, capacity: 0)
        #expect(try off.verify(token, keys: keys, now: Self.now).claims == first.claims && off.count == 0)
    }

    @Test("a kept token is refused once expired (the verification's 30 s leeway), and once its key is retired")
    func expiryAndKeys() throws {
        let keys = try Self.keys()
        let cache = OAuthVerifiedTokens(issuer: Self.issuer, lifetime: 900)
        let token = try Self.token(keys, ttl: 60)
        _ = try cache.verify(token, keys: keys, now: Self.now)
        _ = try cache.verify(token, keys: keys, now: Self.now + 60 + 29)
        #expect(throws: JWTError.self) { try cache.verify(token, keys: keys, now: Self.now + 60 + 30) }
        #expect(cache.count == 0)
        let fresh = try Self.token(keys, jti: "j2")
        _ = try cache.verify(fresh, keys: keys, now: Self.now)
        keys.replace(with: try Self.keys(kid: "ed-2"))
        #expect(throws: JWTError.self) { try cache.verify(fresh, keys: keys, now: Self.now + 1) }
    }

    @Test("never more than its capacity: when full, expired tokens go first, else all of them")
    func bound() throws {
        let keys = try Self.keys()
        let cache = OAuthVerifiedTokens(issuer: Self.issuer, lifetime: 900, capacity: 2)
        _ = try cache.verify(try Self.token(keys, jti: "short", ttl: 60), keys: keys, now: Self.now)
        _ = try cache.verify(try Self.token(keys, jti: "long"), keys: keys, now: Self.now)
        #expect(cache.count == 2)
        _ = try cache.verify(try Self.token(keys, jti: "third"), keys: keys, now: Self.now + 100)
        #expect(cache.count == 2)
        _ = try cache.verify(try Self.token(keys, jti: "fourth"), keys: keys, now: Self.now + 100)
        #expect(cache.count == 1)
    }
}
