import COpenSSL

/// An Ed25519 public key (RFC 8032) that checks EdDSA signatures: JWS "EdDSA" with `crv:"Ed25519"` (RFC 8037).
///
/// Immutable after creation, so one instance may verify from many threads at once.
public final class Ed25519PublicKey: Sendable {
    /// The length of a public key in its raw encoding (RFC 8032 section 5.1.5), in bytes.
    public static let byteCount = 32
    /// The length of every signature, in bytes.
    public static let signatureByteCount = 64

    let key: EVPKey
    /// The 32-byte encoding of RFC 8032 section 5.1.5 (JWK `x` before base64url, RFC 8037 section 2).
    public let rawRepresentation: [UInt8]

    /// Loads a public key from its 32-byte encoding (a JWK's decoded `x`).
    /// - Throws: `CryptoError` `.invalidKey` for another length or bytes OpenSSL does not take as a key.
    public convenience init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw CryptoError(.invalidKey, "an Ed25519 public key has 32 bytes")
        }
        guard let loaded = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, bytes, bytes.count) else {
            throw openSSLError(.invalidKey, "loading the Ed25519 public key")
        }
        try self.init(derivedFrom: EVPKey(taking: loaded))
    }

    /// The public half of `source` (which may be a private key), as a separate key object.
    /// - Throws: `CryptoError` `.unsupportedKey` when `source` is not an Ed25519 key.
    init(derivedFrom source: EVPKey) throws(CryptoError) {
        guard source.isEd25519 else { throw CryptoError(.unsupportedKey, "not an Ed25519 key") }
        let raw = try source.rawPublicKey()
        guard raw.count == Self.byteCount,
            let publicOnly = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, raw, raw.count)
        else { throw openSSLError(.invalidKey, "copying the Ed25519 public key") }
        key = EVPKey(taking: publicOnly)
        rawRepresentation = raw
    }

    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`), as `openssl pkey -pubout` writes it.
    public var pem: String {
        get throws(CryptoError) { try key.publicKeyPEM() }
    }

    /// Checks an Ed25519 signature (pure EdDSA, no prehash) of `message`.
    ///
    /// Returns false for any failure, including a signature that is not 64 bytes.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBufferPointer { signature in
            message.withNonNullPointer { pointer, count in
                verify(signature: signature, message: UnsafeBufferPointer(start: pointer, count: count))
            }
        }
    }

    /// Checks an Ed25519 signature without copying the message.
    public func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        signature.count == Self.signatureByteCount && key.verify(signature: signature, message: message, digest: nil)
    }
}
