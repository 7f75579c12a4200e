import COpenSSL

extension EVPKey {
    /// A signature of `message` by this private key through `EVP_DigestSign`.
    /// - Parameter digest: the hash the scheme signs (SHA-256 for RS256); nil for Ed25519, which hashes inside its
    ///   scheme and signs in one shot.
    /// - Throws: `CryptoError` `.signingFailed`.
    func sign(_ message: UnsafeBufferPointer<UInt8>, digest: OpaquePointer?) throws(CryptoError) -> [UInt8] {
        let context = try DigestContext()
        guard EVP_DigestSignInit(context.pointer, nil, digest, nil, pointer) == 1 else {
            throw openSSLError(.signingFailed, "EVP_DigestSignInit")
        }
        var length = maximumSignatureSize
        var failed = false
        let signature = message.withNonNullBase { base, count in
            [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                if EVP_DigestSign(context.pointer, buffer.baseAddress, &length, base, count) == 1 {
                    initialized = length
                } else {
                    failed = true
                    initialized = 0
                }
            }
        }
        guard !failed else { throw openSSLError(.signingFailed, "EVP_DigestSign") }
        return signature
    }

    /// Whether `signature` is this public key's signature of `message` through `EVP_DigestVerify`; false for any
    /// failure, with OpenSSL's error queue cleared.
    /// - Parameter digest: as for ``sign(_:digest:)``.
    func verify(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>, digest: OpaquePointer?
    ) -> Bool {
        guard let context = try? DigestContext() else { return false }
        let valid = message.withNonNullBase { base, count in
            EVP_DigestVerifyInit(context.pointer, nil, digest, nil, pointer) == 1
                && EVP_DigestVerify(context.pointer, signature.baseAddress, signature.count, base, count) == 1
        }
        if !valid { ERR_clear_error() }
        return valid
    }
}
