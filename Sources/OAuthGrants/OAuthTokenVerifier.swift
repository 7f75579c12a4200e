import JWT
import Storage

/// The one check of this issuer's access tokens, which the resource side (JMAP, MCP, `/api/v1/agents`, the mail
/// doors' XOAUTH2) and introspection both make (issue 86): the token's signature and claims, then its grant.
///
/// 1. The signature: bytes that verified before are not verified again while their token lives and its key is kept
///    (``OAuthVerifiedTokens``, `POSTERN_OAUTH_VERIFIED_TOKEN_CACHE`).
/// 2. The grant, found by the token's `jti` (``OAuthGrantStore/record(for:)``): from ``OAuthGrantCache`` when one is
///    given and holds it live, read otherwise (and then kept, when live). A cache is given only where every revocation
///    reaches it at once (PostgreSQL: the `postern_grants` notification of every instance, and this instance's own
///    revocations through the store's observer); without one (SQLite, where the command line revokes from another
///    process) the grant is read on every request. Either way no token outlives its grant's revocation.
///
/// Built once per composition root and handed to both sides.
public final class OAuthTokenVerifier: Sendable {
    let keys: JWTKeySet
    let verified: OAuthVerifiedTokens
    let grants: OAuthGrantStore
    let cache: OAuthGrantCache?

    /// - Parameters:
    ///   - keys: the key set holding the EdDSA key(s) access tokens are signed with.
    ///   - issuer: the tokens' required `iss`.
    ///   - lifetime: the longest an access token may live, seconds.
    ///   - verifiedTokens: how many verified tokens are kept (0: every check verifies the signature).
    ///   - grants: where a token's grant is found.
    ///   - cache: the instance's cache of live grants, which must hear of every revocation (nil: none).
    public init(
        keys: JWTKeySet, issuer: String, lifetime: Int64, verifiedTokens: Int = OAuthVerifiedTokens.defaultCapacity,
        grants: OAuthGrantStore, cache: OAuthGrantCache?
    ) {
        self.keys = keys
        self.verified = OAuthVerifiedTokens(issuer: issuer, lifetime: lifetime, capacity: verifiedTokens)
        self.grants = grants
        self.cache = cache
    }

    /// `token` verified as an access token of the issuer at `now` (from the verified tokens when its bytes verified
    /// before).
    /// - Throws: `JWTError` naming the first failed check.
    public func verify(_ token: String, now: Int64) throws(JWTError) -> JWTVerified<OAuthAccessClaims> {
        try verified.verify(token, keys: keys, now: now)
    }

    /// The grant of a verified token's `claims` as it stands: kept live in the cache, or read (live or not; nil when
    /// no token of that `jti` was issued). The caller checks ``OAuthGrantRecord/isLive(at:)`` and
    /// ``OAuthGrantRecord/matches(_:)``.
    /// - Throws: storage errors.
    public func record(for claims: OAuthAccessClaims, now: Int64) async throws -> OAuthGrantRecord? {
        if let kept = cache?.record(jti: claims.jti, now: now) { return kept }
        // Taken before the read: a revocation between the read and the store keeps the row out of the cache.
        let generation = cache?.generation()
        let found = try await grants.record(for: claims)
        if let cache, let generation, let found, found.isLive(at: now) {
            cache.store(found, jti: claims.jti, since: generation, now: now)
        }
        return found
    }

    /// Whether the grant is read on the calling thread (SQLite's thread-owned connections): then
    /// ``recordOnCallingThread(for:now:)`` answers without leaving the thread.
    public var readsOnCallingThread: Bool { grants.readsOnCallingThread }

    /// ``record(for:now:)`` read on the calling thread's own connection (short work on an event loop); only where
    /// ``readsOnCallingThread``, where no grant cache is kept.
    /// - Throws: storage errors; `StorageError` `.misuse` where the database reads only off the calling thread.
    public func recordOnCallingThread(for claims: OAuthAccessClaims) throws -> OAuthGrantRecord? {
        try grants.recordOnCallingThread(for: claims)
    }
}
