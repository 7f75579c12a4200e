import AuthCrypto
import JSON
import JWT

/// The fixed clock and issuer of the key-store tests.
let now: Int64 = 1_700_000_000
let issuer = "http://localhost:8080"

/// The purpose these tests sign with `algorithm`: a session (HS256), a capability (RS256) or an OAuth access token
/// (EdDSA).
func purpose(_ algorithm: JWTAlgorithm) -> JWTPurpose {
    switch algorithm {
    case .hs256: return .session
    case .rs256: return .capability
    case .edDSA: return .oauthAccess
    }
}

/// A token of the purpose signed with `algorithm`, from `set`'s active key (with the purpose's header `typ`).
func sign(_ set: JWTKeySet, _ algorithm: JWTAlgorithm, ttl: Int64 = 180, issuedAt: Int64 = now) throws -> String {
    try set.sign(claims(algorithm, ttl: ttl, issuedAt: issuedAt), for: purpose(algorithm))
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
