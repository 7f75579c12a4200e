/// The JWS algorithms Postern signs and accepts.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// HMAC with SHA-256 and a secret of at least 32 bytes.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 and an RSA key of at least 2048 bits.
    case rs256 = "RS256"
    /// Pure Ed25519 (RFC 8037): the OAuth access tokens' algorithm, published as an OKP key in the JWKS.
    case edDSA = "EdDSA"
    /// ECDSA on P-256 with SHA-256, `r || s` (RFC 7518 section 3.4): the ID tokens of relying parties that register
    /// it, published as an EC key in the JWKS.
    case es256 = "ES256"
}
