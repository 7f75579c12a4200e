import COpenSSL

/// An Ed25519 private key (RFC 8032) for EdDSA signatures: JWS "EdDSA" with `crv:"Ed25519"` (RFC 8037).
///
/// Immutable after creation, so one instance may sign from many threads at once.
public final class Ed25519PrivateKey: EVPPrivateKey, MessageSigningKey {
    /// The length of a private key (the RFC 8032 seed), in bytes.
    public static let seedByteCount = 32

    let key: EVPKey
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    init(key: EVPKey) throws(CryptoError) {
        guard key.isEd25519 else { throw CryptoError(.unsupportedKey, "not an Ed25519 key") }
        self.key = key
        publicKey = try Ed25519PublicKey(derivedFrom: key)
    }

    /// Generates a new key from OpenSSL's random generator.
    /// - Throws: `CryptoError` `.keyGenerationFailed`.
    public static func generate() throws(CryptoError) -> Ed25519PrivateKey {
        try generated("ED25519", kind: "Ed25519")
    }

    /// The key whose RFC 8032 private key (the 32-byte seed) is `seed`: for known-answer tests and imports.
    /// - Throws: `CryptoError` `.invalidKey` for a seed that is not 32 bytes.
    public convenience init(seed: [UInt8]) throws(CryptoError) {
        guard seed.count == Self.seedByteCount else {
            throw CryptoError(.invalidKey, "an Ed25519 private key has 32 bytes")
        }
        guard let loaded = EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, seed, seed.count) else {
            throw openSSLError(.invalidKey, "loading the Ed25519 private key")
        }
        try self.init(key: EVPKey(taking: loaded))
    }

    /// Signs `message` with pure Ed25519 without copying it.
    /// - Throws: `CryptoError` `.signingFailed`.
    public func sign(_ message: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8] {
        let signature = try key.sign(message, digest: nil)
        guard signature.count == Ed25519PublicKey.signatureByteCount else {
            throw openSSLError(.signingFailed, "EVP_DigestSign gave \(signature.count) bytes")
        }
        return signature
    }
}
