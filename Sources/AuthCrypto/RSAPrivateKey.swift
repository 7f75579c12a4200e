import COpenSSL

/// An RSA private key (at least 2048 bits) for RS256 signatures: PKCS#1 v1.5 with SHA-256.
///
/// Immutable after creation, so one instance may sign from many threads at once.
public final class RSAPrivateKey: EVPPrivateKey {
    /// The smallest accepted modulus size.
    public static let minimumBits = 2048
    /// The largest accepted modulus size (bounds the cost of a hostile key).
    public static let maximumBits = 8192

    let key: EVPKey
    /// The matching public key.
    public let publicKey: RSAPublicKey
    /// The signing contexts, set up once for every signature this key makes.
    private let signer: RSASigner

    init(key: EVPKey) throws(CryptoError) {
        guard key.isRSA else { throw CryptoError(.unsupportedKey, "not an RSA key") }
        guard key.bits >= Self.minimumBits, key.bits <= Self.maximumBits else {
            throw CryptoError(.unsupportedKey, "RSA key has \(key.bits) bits; 2048 through 8192 are accepted")
        }
        self.key = key
        self.publicKey = try RSAPublicKey(derivedFrom: key)
        self.signer = try RSASigner(key: key)
    }

    /// Generates a new key with public exponent 65537.
    /// - Parameter bits: modulus size, 2048 through 8192.
    /// - Throws: `CryptoError` `.invalidParameters` or `.keyGenerationFailed`.
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= minimumBits, bits <= maximumBits else {
            throw CryptoError(.invalidParameters, "RSA key size must be 2048 through 8192 bits")
        }
        return try generated("RSA", kind: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) == 1 }
    }

    /// The length of every signature this key makes, in bytes.
    public var signatureByteCount: Int { signer.signatureByteCount }

    /// Signs `message` with RSASSA-PKCS1-v1_5 and SHA-256 (JWS "RS256").
    /// - Throws: `CryptoError` `.signingFailed`.
    public func signSHA256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try message.withNonNullPointer { pointer, count throws(CryptoError) in
            try signSHA256(UnsafeBufferPointer(start: pointer, count: count))
        }
    }

    /// Signs `message` with RSASSA-PKCS1-v1_5 and SHA-256 without copying it, on a context set up once
    /// (``RSASigner``).
    /// - Throws: `CryptoError` `.signingFailed`.
    public func signSHA256(_ message: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8] {
        try signer.sign(message)
    }
}
