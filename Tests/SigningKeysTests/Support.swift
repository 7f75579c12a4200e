import AuthCrypto
import JSON
import JWT

/// The fixed clock and issuer of the key-store tests.
let now: Int64 = 1_700_000_000
let issuer = "http://localhost:8080"

/// The purpose these tests sign with `algorithm`: a session (HS256), a capability (RS256) or an OAuth access token
/// (EdDSA). No purpose signs ES256 (ID tokens are signed by algorithm): its tokens carry the session's `pur` and are
/// checked through the JWKS (``verifies(_:_:)``).
func purpose(_ algorithm: JWTAlgorithm) -> JWTPurpose {
    switch algorithm {
    case .hs256, .es256: return .session
    case .rs256: return .capability
    case .edDSA: return .oauthAccess
    }
}

/// A token of the purpose signed with `algorithm`, from `set`'s active key (with the purpose's header `typ`); an
/// ES256 token by the algorithm alone, as ID tokens are.
func sign(_ set: JWTKeySet, _ algorithm: JWTAlgorithm, ttl: Int64 = 180, issuedAt: Int64 = now) throws -> String {
    let claims = claims(algorithm, ttl: ttl, issuedAt: issuedAt)
    return algorithm == .es256 ? try set.sign(claims, algorithm: .es256) : try set.sign(claims, for: purpose(algorithm))
}

/// Whether `set` verifies `token` signed with `algorithm`: under ``policy(_:)``, or for ES256 (which no purpose
/// takes) through the JWKS `set` publishes, as a relying party checks an ID token.
func verifies(_ set: JWTKeySet, _ token: String, _ algorithm: JWTAlgorithm) -> Bool {
    if algorithm == .es256 { return (try? PublishedKeySet(jwks: set.jwksJSON()).verify(token)) != nil }
    return (try? set.verify(token, policy: policy(algorithm), now: now)) != nil
}

/// Valid claims of the purpose signed with `algorithm`, expiring `ttl` seconds after `issuedAt`.
func claims(_ algorithm: JWTAlgorithm = .hs256, ttl: Int64 = 180, issuedAt: Int64 = now) -> JWTClaims {
    let times: [(String, JSONValue)] = [("iat", .int(issuedAt)), ("exp", .int(issuedAt + ttl))]
    return JWTClaims(
        [("iss", .string(issuer))] + times + [
            ("jti", .string(SecureRandom.hex(byteCount: 16))), ("pur", .string(purpose(algorithm).rawValue)),
        ])
}

/// The policy a token of ``claims(_:ttl:issuedAt:)`` signed with `algorithm` verifies under: this issuer, a
/// lifetime up to a week (the longest Postern mints).
func policy(_ algorithm: JWTAlgorithm) -> JWTPolicy {
    JWTPolicy(purpose: purpose(algorithm), issuer: issuer, maximumLifetime: 7 * 24 * 3600)
}

/// One RSA key for the whole test process (generation takes tens of milliseconds).
let sharedRSAKey: RSAPrivateKey = {
    do { return try RSAPrivateKey.generate() } catch { fatalError("RSA key generation failed: \(error)") }
}()

/// base64url of UTF-8 text.
func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
