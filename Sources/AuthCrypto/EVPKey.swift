import COpenSSL

/// Owns one OpenSSL `EVP_PKEY`, freed on deinit.
///
/// `@unchecked Sendable`: the key is never modified after creation, and OpenSSL 3 allows an
/// unmodified `EVP_PKEY` to be used by many threads at once (each operation makes its own context).
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    var isRSA: Bool { EVP_PKEY_is_a(pointer, "RSA") == 1 }
    var isEd25519: Bool { EVP_PKEY_is_a(pointer, "ED25519") == 1 }
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }
    var maximumSignatureSize: Int { Int(EVP_PKEY_get_size(pointer)) }

    /// Loads an unencrypted private key of any type from PEM (PKCS#8, or the traditional per-type forms).
    ///
    /// The passphrase callback refuses every passphrase, so an encrypted key fails instead of prompting on a tty.
    /// - Throws: `CryptoError` `.invalidKey`.
    static func readPrivateKey(pem: String) throws(CryptoError) -> EVPKey {
        let loaded = try MemoryBIO.reading(pem) { bio throws(CryptoError) -> OpaquePointer in
            let refusePassphrase:
                @convention(c) (
                    UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
                ) -> Int32 = { _, _, _, _ in -1 }
            guard let key = PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) else {
                throw openSSLError(.invalidKey, "reading private key PEM")
            }
            return key
        }
        return EVPKey(taking: loaded)
    }

    /// The key's public half as SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    func publicKeyPEM() throws(CryptoError) -> String {
        let bio = try MemoryBIO()
        guard PEM_write_bio_PUBKEY(bio.pointer, pointer) == 1 else {
            throw openSSLError(.encodingFailed, "writing public key PEM")
        }
        return bio.text()
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    func privateKeyPKCS8PEM() throws(CryptoError) -> String {
        let bio = try MemoryBIO()
        guard PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil) == 1 else {
            throw openSSLError(.encodingFailed, "writing PKCS#8 PEM")
        }
        return bio.text()
    }

    /// The raw public key of an Ed25519 or X25519 key (RFC 8032 encoding for Ed25519: 32 bytes).
    func rawPublicKey() throws(CryptoError) -> [UInt8] {
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pointer, nil, &length) == 1, length > 0, length <= 64 else {
            throw openSSLError(.invalidKey, "key has no raw public key")
        }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            if EVP_PKEY_get_raw_public_key(pointer, buffer.baseAddress, &length) == 1 {
                initialized = length
            } else {
                failed = true
                initialized = 0
            }
        }
        guard !failed else { throw openSSLError(.invalidKey, "reading the raw public key") }
        return bytes
    }

    /// The big-endian bytes of an integer parameter ("n", "e"), without leading zeros.
    func bigEndianParameter(_ name: String) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            throw openSSLError(.invalidKey, "RSA key has no parameter \(name)")
        }
        defer { BN_free(number) }
        let count = Int(postern_BN_num_bytes(number))
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = Int(BN_bn2bin(number, buffer.baseAddress))
        }
    }
}

/// Owns one memory `BIO`, freed on deinit.
final class MemoryBIO {
    let pointer: OpaquePointer

    /// An empty, writable memory BIO.
    init() throws(CryptoError) {
        guard let bio = BIO_new(BIO_s_mem()) else { throw openSSLError(.encodingFailed, "BIO_new") }
        pointer = bio
    }

    deinit {
        BIO_free(pointer)
    }

    /// Everything written so far, as text.
    func text() -> String {
        var data: UnsafeMutablePointer<CChar>?
        let count = postern_BIO_get_mem_data(pointer, &data)
        guard count > 0, let data else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// Runs `body` with a read-only memory BIO over the UTF-8 bytes of `text`.
    static func reading<Result>(
        _ text: String, _ body: (OpaquePointer) throws(CryptoError) -> Result
    ) throws(CryptoError) -> Result {
        guard text.utf8.count < Int(Int32.max) else { throw CryptoError(.invalidKey, "PEM text too large") }
        let bytes = Array(text.utf8)
        return try bytes.withNonNullPointer { pointer, count throws(CryptoError) in
            guard let bio = BIO_new_mem_buf(pointer, Int32(count)) else {
                throw openSSLError(.invalidKey, "BIO_new_mem_buf")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }
}

/// Owns one `EVP_MD_CTX`, freed on deinit.
final class DigestContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let context = EVP_MD_CTX_new() else { throw openSSLError(.signingFailed, "EVP_MD_CTX_new") }
        pointer = context
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }
}

/// Owns one `EVP_PKEY_CTX`, freed on deinit.
final class KeyContext {
    let pointer: OpaquePointer

    init(name: String) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw openSSLError(.keyGenerationFailed, "EVP_PKEY_CTX_new_from_name")
        }
        pointer = context
    }

    deinit {
        EVP_PKEY_CTX_free(pointer)
    }
}
