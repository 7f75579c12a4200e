import AuthCrypto
import JSON
import JWT
import Synchronization
import Time

/// A bounded cache of this issuer's access tokens whose signature verified, keyed by the SHA-256 of the token's bytes
/// (issue 86: the Ed25519 check was 38% of an introspection's CPU, paid again for every request with the same token).
/// The same bytes verify the same way until the token expires, so a hit skips the signature and the decoding and
/// keeps every check that depends on the time or the keys:
///
/// 1. the token has not expired (`exp`, with the verification's leeway of ``leeway`` seconds), and
/// 2. the key it was signed with is still in the key set (a retired key ends its tokens at once).
///
/// A token that fails either is verified afresh, which refuses it with the error a first verification gives. Only
/// verified tokens are kept, and an entry goes once its token has expired. What a token opens (its grant live,
/// unrevoked, agreeing with its claims) is never kept here: the caller reads it on every request, so nothing outlives
/// its revocation. Memory is bounded by ``capacity`` entries (each the claims of one token, about 1 KiB): when full,
/// expired entries go, and if none had, every entry goes (a bounded cost: the next requests verify again).
public final class OAuthVerifiedTokens: Sendable {
    /// The default bound, in tokens.
    public static let defaultCapacity = 4096
    /// The clock leeway, seconds, of the verifications this cache stands for (the key set's default).
    public static let leeway: Int64 = 30

    /// The most tokens kept; 0 keeps none (every request verifies).
    public let capacity: Int
    let policy: JWTPolicy
    private let entries: Mutex<ExpiringEntries<[UInt8], Entry>>

    struct Entry: Sendable {
        let verified: JWTVerified<OAuthAccessClaims>
        /// The key that signed it.
        let kid: String
    }

    /// - Parameters:
    ///   - issuer: the issuer the tokens must be of.
    ///   - lifetime: the longest an access token may live, seconds.
    ///   - capacity: the most tokens kept (0: none).
    public init(issuer: String, lifetime: Int64, capacity: Int = defaultCapacity) {
        policy = OAuthAccessClaims.policy(issuer: issuer, lifetime: lifetime)
        self.capacity = max(0, capacity)
        entries = Mutex(
            ExpiringEntries(capacity: capacity) { entry, now in
                OAuthVerifiedTokens.unexpired(entry.verified.expiresAt, now: now)
            })
    }

    /// How many tokens are kept now.
    public var count: Int { entries.withLock { $0.count } }

    /// `token` verified as an access token of the issuer (as ``OAuthAccessClaims/verify(_:keys:issuer:lifetime:now:)``
    /// with its `iat` and `exp`): from the cache when the same bytes verified before, their token is unexpired at `now`
    /// and its key still in `keys`; verified (and kept) otherwise.
    /// - Throws: `JWTError` naming the first failed check, as a verification would.
    public func verify(_ token: String, keys: JWTKeySet, now: Int64) throws(JWTError) -> JWTVerified<OAuthAccessClaims> {
        guard capacity > 0, token.utf8.count <= JWTKeySet.maximumTokenLength else {
            return try keys.verifyWithLifetime(
                token, as: OAuthAccessClaims.self, policy: policy, now: now, leeway: Self.leeway)
        }
        let digest = SHA256.hash(token)
        if let entry = entries.withLock({ $0[digest] }) {
            if Self.unexpired(entry.verified.expiresAt, now: now), keys.key(kid: entry.kid) != nil {
                return entry.verified
            }
            entries.withLock { _ = $0.removeValue(forKey: digest) }
        }
        let verified = try keys.verifyWithLifetime(
            token, as: OAuthAccessClaims.self, policy: policy, now: now, leeway: Self.leeway)
        if let kid = Self.kid(of: token) {
            // Making room when full drops the expired tokens, then all (``ExpiringEntries``).
            entries.withLock { _ = $0.insert(Entry(verified: verified, kid: kid), for: digest, now: now) }
        }
        return verified
    }

    /// The verification's rule: a token is refused on or after `exp` plus the leeway.
    static func unexpired(_ expiresAt: Int64, now: Int64) -> Bool {
        let (earliest, overflow) = now.subtractingReportingOverflow(leeway)
        return expiresAt > (overflow ? Int64.min : earliest)
    }

    /// The `kid` of a token's header; nil when it names none (such a token is not kept).
    static func kid(of token: String) -> String? {
        guard let header = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).first,
            header.count <= 1024, let decoded = Base64URL.decode(String(decoding: header, as: UTF8.self))
        else { return nil }
        return (try? JSONValue.parse(decoded, limits: .init(maximumDepth: 4)))?["kid"]?.stringValue
    }
}
