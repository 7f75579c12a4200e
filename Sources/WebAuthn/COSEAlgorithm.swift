/// The COSE signature algorithms the relying party accepts (IANA "COSE Algorithms"), by their identifiers.
public enum COSEAlgorithm: Int64, Sendable, CaseIterable, Hashable {
    /// ECDSA with SHA-256 on P-256; WebAuthn carries the signature in DER.
    case es256 = -7
    /// EdDSA; WebAuthn uses it with Ed25519 (64-byte signatures).
    case eddsa = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257
}
