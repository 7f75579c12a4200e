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

/// One Ed25519 key for the whole test process.
let sharedEd25519Key: Ed25519PrivateKey = {
    do { return try Ed25519PrivateKey.generate() } catch { fatalError("Ed25519 key generation failed: \(error)") }
}()

/// One P-256 key for the whole test process.
let sharedP256Key: P256PrivateKey = {
    do { return try P256PrivateKey.generate() } catch { fatalError("P-256 key generation failed: \(error)") }
}()

/// A key set with one HMAC key ("h1"), one RSA key ("r1"), one Ed25519 key ("e1") and one P-256 key ("p1"), all
/// active.
func makeKeySet() throws -> JWTKeySet {
    try JWTKeySet(
        keys: [
            JWTKey.hmac(kid: "h1", secret: hmacSecret), JWTKey.rsa(kid: "r1", privateKey: sharedRSAKey),
            JWTKey.ed25519(kid: "e1", privateKey: sharedEd25519Key), JWTKey.p256(kid: "p1", privateKey: sharedP256Key),
        ],
        activeHMAC: "h1", activeRSA: "r1", activeEdDSA: "e1", activeES256: "p1")
}

/// The algorithms some purpose signs with (ES256 signs only ID tokens, chosen by algorithm, never by purpose).
let purposeAlgorithms: [JWTAlgorithm] = JWTAlgorithm.allCases.filter { algorithm in
    JWTPurpose.allCases.contains { $0.algorithm == algorithm }
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

/// A purpose whose tokens are signed with `algorithm`, for tests that run over every algorithm.
func purpose(signedWith algorithm: JWTAlgorithm) -> JWTPurpose {
    switch algorithm {
    case .hs256: return .session
    case .rs256: return .capability
    case .edDSA: return .oauthAccess
    case .es256: preconditionFailure("no purpose signs ES256; the tests take purposeAlgorithms")
    }
}

/// base64url of UTF-8 text.
func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

/// A token with an arbitrary header, signed by HMAC with `secret` (for forging attacks).
func forgeHMAC(header: String, payload: JWTClaims, secret: [UInt8]) -> String {
    let input = b64(header) + "." + Base64URL.encode(payload.json.serialize())
    return input + "." + Base64URL.encode(HMACSHA256.authenticationCode(key: secret, message: Array(input.utf8)))
}

/// A token with an arbitrary header, signed by `key` with Ed25519 (for headers the key set would not write).
func forgeEdDSA(header: String, payload: JWTClaims, key: Ed25519PrivateKey = sharedEd25519Key) throws -> String {
    let input = b64(header) + "." + Base64URL.encode(payload.json.serialize())
    return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
}

/// A token with an arbitrary header, signed by `key` with ES256.
func forgeES256(header: String, payload: JWTClaims, key: P256PrivateKey = sharedP256Key) throws -> String {
    let input = b64(header) + "." + Base64URL.encode(payload.json.serialize())
    return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
}

/// A token with an arbitrary header, signed by `key` with RS256.
func forgeRS256(header: String, payload: JWTClaims, key: RSAPrivateKey = sharedRSAKey) throws -> String {
    let input = b64(header) + "." + Base64URL.encode(payload.json.serialize())
    return input + "." + Base64URL.encode(try key.signSHA256(Array(input.utf8)))
}

/// A token with an arbitrary header and signature text.
func forgeUnsigned(header: String, payload: JWTClaims, signature: String) -> String {
    b64(header) + "." + Base64URL.encode(payload.json.serialize()) + "." + signature
}
