import COpenSSL

/// An Ed25519 private key (RFC 8032) for EdDSA signatures: JWS "EdDSA" with `crv:"Ed25519"` (RFC 8037).
///
/// Immutable after creation, so one instance may sign from many threads at once.
public final class Ed25519PrivateKey: Sendable {
    /// The length of a private key (the RFC 8032 seed), in bytes.
    public static let seedByteCount = 32

    let key: EVPKey
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    private init(key: EVPKey) throws(CryptoError) {
        guard key.isEd25519 else { throw CryptoError(.unsupportedKey, "not an Ed25519 key") }
        self.key = key
        publicKey = try Ed25519PublicKey(derivedFrom: key)
    }

    /// Generates a new key from OpenSSL's random generator.
    /// - Throws: `CryptoError` `.keyGenerationFailed`.
    public static func generate() throws(CryptoError) -> Ed25519PrivateKey {
        let context = try KeyContext(name: "ED25519")
        guard EVP_PKEY_keygen_init(context.pointer) == 1 else {
            throw openSSLError(.keyGenerationFailed, "Ed25519 key generation setup")
        }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(context.pointer, &generated) == 1, let generated else {
            throw openSSLError(.keyGenerationFailed, "Ed25519 key generation")
        }
        return try Ed25519PrivateKey(key: EVPKey(taking: generated))
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

    /// Loads an unencrypted PKCS#8 private key from PEM (`BEGIN PRIVATE KEY`, as ``pkcs8PEM`` and
    /// `openssl genpkey -algorithm ED25519` write it).
    /// - Throws: `CryptoError` `.invalidKey` for unreadable or encrypted PEM, `.unsupportedKey` for a key of
    ///   another type.
    public convenience init(pem: String) throws(CryptoError) {
        try self.init(key: EVPKey.readPrivateKey(pem: pem))
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    ///
    /// - Warning: this is the secret key. Write it only to a file with mode 0600 or sealed; never log it.
    public var pkcs8PEM: String {
        get throws(CryptoError) { try key.privateKeyPKCS8PEM() }
    }

    /// Signs `message` with pure Ed25519 (JWS "EdDSA"); the signature is 64 bytes.
    /// - Throws: `CryptoError` `.signingFailed`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try message.withNonNullPointer { pointer, count throws(CryptoError) in
            try sign(UnsafeBufferPointer(start: pointer, count: count))
        }
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
