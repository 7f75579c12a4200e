import COpenSSL

/// An RSA public key (at least 2048 bits) that checks RS256 signatures.
///
/// Immutable after creation, so one instance may verify from many threads at once.
public final class RSAPublicKey: Sendable {
    let key: EVPKey
    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public let pem: String
    /// The modulus, big-endian, without leading zero bytes (JWK `n` before base64url).
    public let modulus: [UInt8]
    /// The public exponent, big-endian, without leading zero bytes (JWK `e` before base64url).
    public let exponent: [UInt8]
    /// The modulus size in bits.
    public let bits: Int

    /// Loads a public key from PEM: SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`) or PKCS#1
    /// (`BEGIN RSA PUBLIC KEY`).
    /// - Throws: `CryptoError` `.invalidKey` for unreadable PEM, `.unsupportedKey` for a key that is
    ///   not RSA or has fewer than 2048 bits.
    public convenience init(pem text: String) throws(CryptoError) {
        let decoded = try MemoryBIO.reading(text) { bio throws(CryptoError) -> OpaquePointer in
            var key: OpaquePointer?
            guard
                let decoder = OSSL_DECODER_CTX_new_for_pkey(
                    &key, "PEM", nil, "RSA", postern_EVP_PKEY_PUBLIC_KEY(), nil, nil)
            else { throw openSSLError(.invalidKey, "OSSL_DECODER_CTX_new_for_pkey") }
            defer { OSSL_DECODER_CTX_free(decoder) }
            guard OSSL_DECODER_from_bio(decoder, bio) == 1, let key else {
                throw openSSLError(.invalidKey, "reading public key PEM")
            }
            return key
        }
        // Re-encode as SubjectPublicKeyInfo and read that back, so that only public parts are kept.
        try self.init(derivedFrom: EVPKey(taking: decoded))
    }

    /// The public half of `source` (which may be a private key), as a separate key object.
    init(derivedFrom source: EVPKey) throws(CryptoError) {
        guard source.isRSA else { throw CryptoError(.unsupportedKey, "not an RSA key") }
        guard source.bits >= RSAPrivateKey.minimumBits, source.bits <= RSAPrivateKey.maximumBits else {
            throw CryptoError(.unsupportedKey, "RSA key has \(source.bits) bits; 2048 through 8192 are accepted")
        }
        let bio = try MemoryBIO()
        guard PEM_write_bio_PUBKEY(bio.pointer, source.pointer) == 1 else {
            throw openSSLError(.encodingFailed, "writing public key PEM")
        }
        let pem = bio.text()
        let publicOnly = try MemoryBIO.reading(pem) { bio throws(CryptoError) -> OpaquePointer in
            guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                throw openSSLError(.invalidKey, "reading public key PEM")
            }
            return key
        }
        key = EVPKey(taking: publicOnly)
        self.pem = pem
        modulus = try key.bigEndianParameter("n")
        exponent = try key.bigEndianParameter("e")
        bits = key.bits
    }

    /// The length of every valid signature, in bytes.
    public var signatureByteCount: Int { key.maximumSignatureSize }

    /// Checks an RSASSA-PKCS1-v1_5 SHA-256 signature (JWS "RS256") of `message`.
    ///
    /// Returns false for any failure, including a signature of the wrong length.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBufferPointer { signature in
            message.withNonNullPointer { pointer, count in
                verifySHA256(signature: signature, message: UnsafeBufferPointer(start: pointer, count: count))
            }
        }
    }

    /// Checks an RS256 signature without copying the message.
    public func verifySHA256(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        signature.count == signatureByteCount
            && key.verify(signature: signature, message: message, digest: EVP_sha256())
    }
}
