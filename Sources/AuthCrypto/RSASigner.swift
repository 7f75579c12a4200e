import COpenSSL
import Synchronization

/// The RS256 signing contexts of one RSA private key, made once and reused: each signature is the SHA-256 of the
/// message (through the pre-fetched digest, ``SHA256``) and one `EVP_PKEY_sign` on a context already set up for
/// PKCS#1 v1.5 padding with SHA-256.
///
/// `EVP_DigestSign` builds a context per signature (`EVP_MD_CTX_new`, then `EVP_DigestSignInit`, which fetches
/// the signature algorithm and the digest from the provider store under its locks and sets the padding up); a
/// context set up once signs any number of digests with the same parameters (`EVP_PKEY_sign(3)`), and the
/// signatures are the same bytes (PKCS#1 v1.5 is deterministic).
///
/// Each signature takes a context of its own from a few kept for reuse (or duplicated from the prepared one when
/// all are in use), as ``HMACSHA256/Key`` does, so one key signs from many threads at once.
///
/// `@unchecked Sendable`: the prepared context is never modified after `init` (only read through
/// `EVP_PKEY_CTX_dup`); a kept context is used by one call at a time, handed out and taken back by the mutex.
final class RSASigner: @unchecked Sendable {
    private let template: OpaquePointer
    private let spares = Mutex<[Spare]>([])
    /// A kept context; only the mutex's holder touches it.
    private struct Spare: @unchecked Sendable { let context: OpaquePointer }
    /// Contexts kept for reuse: one per thread that signs at once, on the machines Postern runs on.
    private static var keptContexts: Int { 16 }
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
        template = context
        signatureByteCount = key.maximumSignatureSize
    }

    deinit {
        for spare in spares.withLock({ $0 }) { EVP_PKEY_CTX_free(spare.context) }
        EVP_PKEY_CTX_free(template)
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 of `message`.
    /// - Throws: `CryptoError` `.signingFailed`.
    func sign(_ message: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8] {
        let digest = SHA256.hash(message)
        guard let context = spares.withLock({ $0.popLast()?.context }) ?? EVP_PKEY_CTX_dup(template) else {
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
        guard !failed else {
            // A context that failed may hold state of the failure: never reuse it.
            EVP_PKEY_CTX_free(context)
            throw openSSLError(.signingFailed, "EVP_PKEY_sign")
        }
        giveBack(context)
        return signature
    }

    /// Keeps a used context for the next signature, unless enough are kept.
    private func giveBack(_ context: OpaquePointer) {
        let kept = spares.withLock { spares in
            guard spares.count < Self.keptContexts else { return false }
            spares.append(Spare(context: context))
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }
}
