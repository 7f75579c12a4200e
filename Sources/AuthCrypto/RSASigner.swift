import COpenSSL

/// The RS256 signing contexts of one RSA private key, made once and reused: each signature is the SHA-256 of the
/// message (through the pre-fetched digest, ``SHA256``) and one `EVP_PKEY_sign` on a context already set up for
/// PKCS#1 v1.5 padding with SHA-256.
///
/// `EVP_DigestSign` builds a context per signature (`EVP_MD_CTX_new`, then `EVP_DigestSignInit`, which fetches
/// the signature algorithm and the digest from the provider store under its locks and sets the padding up); a
/// context set up once signs any number of digests with the same parameters (`EVP_PKEY_sign(3)`), and the
/// signatures are the same bytes (PKCS#1 v1.5 is deterministic).
///
/// Each signature takes a context of its own from the ``OpenSSLContextPool`` of the prepared one, as
/// ``HMACSHA256/Key`` does, so one key signs from many threads at once.
final class RSASigner: Sendable {
    private let contexts: OpenSSLContextPool
    /// The length of every signature, in bytes.
    let signatureByteCount: Int

    /// Prepares signing with `key`, an RSA private key.
    /// - Throws: `CryptoError` `.signingFailed` when OpenSSL cannot set the context up.
    init(key: EVPKey) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw openSSLError(.signingFailed, "EVP_PKEY_CTX_new_from_pkey")
        }
        guard EVP_PKEY_sign_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, SHA256.messageDigest) == 1
        else {
            EVP_PKEY_CTX_free(context)
            throw openSSLError(.signingFailed, "RS256 signing context")
        }
        contexts = OpenSSLContextPool(
            template: context, duplicate: { EVP_PKEY_CTX_dup($0) }, free: { EVP_PKEY_CTX_free($0) })
        signatureByteCount = key.maximumSignatureSize
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 of `message`.
    /// - Throws: `CryptoError` `.signingFailed`.
    func sign(_ message: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8] {
        let digest = SHA256.hash(message)
        guard let context = contexts.take() else {
            throw openSSLError(.signingFailed, "EVP_PKEY_CTX_dup")
        }
        var failed = false
        let signature = [UInt8](unsafeUninitializedCapacity: signatureByteCount) { buffer, initialized in
            var length = signatureByteCount
            if EVP_PKEY_sign(context, buffer.baseAddress, &length, digest, digest.count) == 1 {
                initialized = length
            } else {
                failed = true
                initialized = 0
            }
        }
        contexts.giveBack(context, reusable: !failed)
        guard !failed else { throw openSSLError(.signingFailed, "EVP_PKEY_sign") }
        return signature
    }
}
