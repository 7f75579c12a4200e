import AuthCrypto
import JWT

/// The fixed clock and issuer of the key-store tests.
let now: Int64 = 1_700_000_000
let issuer = "http://localhost:8080"

/// Valid claims for `purpose` that expire `ttl` seconds after `issuedAt`.
func claims(purpose: String = "challenge", ttl: Int64 = 180, issuedAt: Int64 = now) -> JWTClaims {
    let times: [(String, JSONValue)] = [("iat", .int(issuedAt)), ("exp", .int(issuedAt + ttl))]
    return JWTClaims([("iss", .string(issuer))] + times + [
        ("jti", .string(SecureRandom.hex(byteCount: 16))), ("pur", .string(purpose)),
    ])
}

/// One RSA key for the whole test process (generation takes tens of milliseconds).
let sharedRSAKey: RSAPrivateKey = {
    do { return try RSAPrivateKey.generate() } catch { fatalError("RSA key generation failed: \(error)") }
}()

/// base64url of UTF-8 text.
func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
