import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL: authenticated encryption with a 96-bit nonce and a
/// 128-bit tag, for secrets Postern keeps in a database (signing keys under the operator's secret).
public enum AESGCM {
    /// Key length in bytes (AES-256).
    public static let keyByteCount = 32
    /// Nonce length in bytes.
    public static let nonceByteCount = 12
    /// Tag length in bytes.
    public static let tagByteCount = 16

    /// Encrypts `plaintext` and authenticates it with `associatedData`.
    /// - Returns: the ciphertext (as long as the plaintext) followed by the 16-byte tag.
    /// - Throws: `CryptoError` `.invalidParameters` for a key or nonce of the wrong length.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        let context = try Context(key: key, nonce: nonce, encrypting: true)
        try context.feedAssociated(associatedData)
        var output = try context.update(plaintext)
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptFinal_ex(context.pointer, &scratch, &length) == 1 else { throw failure("final") }
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), &tag) == 1 else {
            throw failure("tag")
        }
        output += tag
        return output
    }

    /// Decrypts what ``seal(_:key:nonce:associatedData:)`` returned, after checking its tag.
    /// - Throws: `CryptoError` `.authenticationFailed` when the key, nonce, associated data or any byte
    ///   differs from the sealing; `.invalidParameters` for wrong lengths.
    public static func open(
        _ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= tagByteCount else { throw CryptoError(.authenticationFailed, "sealed data is too short") }
        let context = try Context(key: key, nonce: nonce, encrypting: false)
        try context.feedAssociated(associatedData)
        var plaintext = try context.update(Array(sealed.dropLast(tagByteCount)))
        var tag = Array(sealed.suffix(tagByteCount))
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), &tag) == 1 else {
            throw failure("tag")
        }
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context.pointer, &scratch, &length) == 1 else {
            _ = drainOpenSSLErrors(fallback: "")
            for index in plaintext.indices { plaintext[index] = 0 }
            throw CryptoError(.authenticationFailed, "AES-GCM tag does not match")
        }
        return plaintext
    }

    private static func failure(_ step: String) -> CryptoError {
        CryptoError(.invalidParameters, "AES-GCM \(step): \(drainOpenSSLErrors(fallback: "failed"))")
    }

    /// One EVP cipher context, freed with it.
    private final class Context {
        let pointer: OpaquePointer
        let encrypting: Bool

        init(key: [UInt8], nonce: [UInt8], encrypting: Bool) throws(CryptoError) {
            guard key.count == AESGCM.keyByteCount else {
                throw CryptoError(.invalidParameters, "AES-256-GCM needs a 32-byte key")
            }
            guard nonce.count == AESGCM.nonceByteCount else {
                throw CryptoError(.invalidParameters, "AES-GCM needs a 12-byte nonce")
            }
            guard let pointer = EVP_CIPHER_CTX_new() else { throw AESGCM.failure("context") }
            self.pointer = pointer
            self.encrypting = encrypting
            let initialized =
                encrypting
                ? EVP_EncryptInit_ex(pointer, EVP_aes_256_gcm(), nil, key, nonce)
                : EVP_DecryptInit_ex(pointer, EVP_aes_256_gcm(), nil, key, nonce)
            guard initialized == 1 else { throw AESGCM.failure("init") }
        }

        deinit { EVP_CIPHER_CTX_free(pointer) }

        func feedAssociated(_ data: [UInt8]) throws(CryptoError) {
            guard !data.isEmpty else { return }
            var length: Int32 = 0
            let fed =
                encrypting
                ? EVP_EncryptUpdate(pointer, nil, &length, data, Int32(data.count))
                : EVP_DecryptUpdate(pointer, nil, &length, data, Int32(data.count))
            guard fed == 1 else { throw AESGCM.failure("associated data") }
        }

        func update(_ input: [UInt8]) throws(CryptoError) -> [UInt8] {
            guard !input.isEmpty else { return [] }
            var output = [UInt8](repeating: 0, count: input.count + 16)
            var length: Int32 = 0
            let done =
                encrypting
                ? EVP_EncryptUpdate(pointer, &output, &length, input, Int32(input.count))
                : EVP_DecryptUpdate(pointer, &output, &length, input, Int32(input.count))
            guard done == 1 else { throw AESGCM.failure("update") }
            return Array(output.prefix(Int(length)))
        }
    }
}
