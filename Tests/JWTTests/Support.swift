import AuthCrypto
import JWT

/// A fixed clock for every test.
let now: Int64 = 1_700_000_000
let issuer = "http://localhost:8080"

/// One RSA key for the whole test process (generation takes tens of milliseconds).
let sharedRSAKey: RSAPrivateKey = {
    do { return try RSAPrivateKey.generate() } catch { fatalError("RSA key generation failed: \(error)") }
}()

let hmacSecret: [UInt8] = Array(0..<32)

/// A key set with one HMAC key ("h1") and one RSA key ("r1"), both active.
func makeKeySet() throws -> JWTKeySet {
    try JWTKeySet(
        keys: [JWTKey.hmac(kid: "h1", secret: hmacSecret), JWTKey.rsa(kid: "r1", privateKey: sharedRSAKey)],
        activeHMAC: "h1", activeRSA: "r1")
}

/// Valid claims for `purpose`, expiring `ttl` seconds after `now`.
func claims(purpose: JWTPurpose = .challenge, ttl: Int64 = 180, issuedAt: Int64 = now) -> JWTClaims {
    JWTClaims([
        ("iss", .string(issuer)), ("iat", .int(issuedAt)), ("exp", .int(issuedAt + ttl)),
        ("jti", .string(SecureRandom.hex(byteCount: 16))), ("pur", .string(purpose.rawValue)),
    ])
}

/// The policy these tests verify `purpose` with: this issuer, a lifetime of `lifetime` seconds, no audience.
func policy(_ purpose: JWTPurpose = .challenge, lifetime: Int64 = 3600, audience: String? = nil) -> JWTPolicy {
    JWTPolicy(purpose: purpose, issuer: issuer, maximumLifetime: lifetime, audience: audience)
}

/// A purpose whose tokens are signed with `algorithm`, for tests that run over both algorithms.
func purpose(signedWith algorithm: JWTAlgorithm) -> JWTPurpose {
    algorithm == .hs256 ? .session : .capability
}

/// base64url of UTF-8 text.
func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

/// A token with an arbitrary header, signed by HMAC with `secret` (for forging attacks).
func forgeHMAC(header: String, payload: JWTClaims, secret: [UInt8]) -> String {
    let input = b64(header) + "." + Base64URL.encode(payload.json.serialize())
    return input + "." + Base64URL.encode(HMACSHA256.authenticationCode(key: secret, message: Array(input.utf8)))
}

/// A token with an arbitrary header and signature text.
func forgeUnsigned(header: String, payload: JWTClaims, signature: String) -> String {
    b64(header) + "." + Base64URL.encode(payload.json.serialize()) + "." + signature
}
