/// The JWS algorithms Postern signs and accepts.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// HMAC with SHA-256 and a secret of at least 32 bytes.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 and an RSA key of at least 2048 bits.
    case rs256 = "RS256"
}
