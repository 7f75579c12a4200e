import AuthCrypto
import Directory
import JSON
import JWT
import MetricsTestKit
import OAuthGrants
import OAuthResource
import PosternTestSupport
import Storage

/// A database of one backend with the OAuth tables, a key set with an Ed25519, an RSA and an HMAC key, and a
/// verifier over them; grants and tokens are written as the authorization server writes them (``OAuthGrantRows``).
struct OAuthVerifierFixture {
    static let issuer = "https://postern.test"
    static let base = "https://postern.test"
    static let jmap = base + "/jmap"
    static let mcp = base + "/mcp"

    let test: TestDatabase
    let rows: OAuthGrantRows
    let keys: JWTKeySet
    let clock = TestClock()
    let cache = OAuthGrantCache()
    let metrics = TestMetrics()
    let verifier: OAuthAccessVerifier

    init(_ backend: StorageBackend, cacheGrants: Bool = true) throws {
        test = try backend.makeDatabase()
        rows = OAuthGrantRows(database: test.database)
        keys = try JWTKeySet(
            keys: [
                try .ed25519(kid: "ed-1", privateKey: try Ed25519PrivateKey.generate()),
                try .rsa(kid: "rsa-1", privateKey: TestRSAKey.shared),
                try .hmac(kid: "hs-1", secret: SecureRandom.bytes(32)),
            ], activeHMAC: "hs-1", activeRSA: "rsa-1", activeEdDSA: "ed-1")
        verifier = Self.verifier(test.database, keys, cache, clock, metrics, cacheGrants: cacheGrants)
    }

    static func verifier(
        _ database: any SQLDatabase, _ keys: JWTKeySet, _ cache: OAuthGrantCache, _ clock: TestClock,
        _ metrics: TestMetrics, cacheGrants: Bool = true
    ) -> OAuthAccessVerifier {
        var configuration = OAuthResourceConfiguration(issuer: issuer, baseURL: base + "/")
        configuration.cacheGrants = cacheGrants
        return OAuthAccessVerifier(
            configuration: configuration, keys: keys, grants: OAuthGrantStore(database: database), cache: cache,
            clock: { clock.now },
            metricsFactory: metrics)
    }

    /// The claims the authorization server mints (RFC 9068), for `jti`.
    func claims(
        owner: String, client: String, audience: String, scope: String, jti: String, issuer: String = issuer,
        ttl: Int64 = 900
    ) -> JWTClaims {
        var claims = JWTClaims(
            issuer: issuer, subject: owner, purpose: .oauthAccess, issuedAt: clock.now, ttl: ttl, jti: jti)
        claims["aud"] = .string(audience)
        claims["client_id"] = .string(client)
        claims["scope"] = .string(scope)
        return claims
    }

    /// A grant and one access token for it, recorded; the token and the grant's id.
    func issue(
        audience: String = jmap, scope: String = "mail.read mail.send", grantScope: String? = nil,
        agentID: String? = nil
    ) throws -> (token: String, grant: String, owner: String, client: String, jti: String) {
        let owner = try rows.owner()
        let client = try rows.client()
        let grant = try rows.grant(
            owner: owner, client: client, scope: grantScope ?? scope, resource: audience, agentID: agentID)
        let jti = SecureRandom.identifier(byteCount: 16)
        try rows.token(jti: jti, grant: grant, expiresAt: clock.now + 900)
        let token = try keys.sign(
            claims(owner: owner, client: client, audience: audience, scope: scope, jti: jti), for: .oauthAccess)
        return (token, grant, owner, client, jti)
    }

    /// How many verifications ended with `result`.
    func counted(_ result: String) throws -> Int64 {
        try metrics.expectCounter("postern_oauth_token_verifications_total", [("result", result)]).totalValue
    }
}
