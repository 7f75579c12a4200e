import COpenSSL

/// An ECDSA P-256 private key (NIST P-256, `prime256v1`) for ES256 signatures (RFC 7518 section 3.4): signs the ID
/// tokens of the relying parties that register `id_token_signed_response_alg` ES256.
///
/// OpenSSL writes an ECDSA signature as DER; JWS wants the two 32-byte big-endian integers `r || s`, so
/// ``sign(_:)`` converts (``P256PublicKey`` converts back to verify).
///
/// Immutable after creation, so one instance may sign from many threads at once.
public final class P256PrivateKey: EVPPrivateKey, MessageSigningKey {
    let key: EVPKey
    /// The matching public key (its JWK's `x` and `y`).
    public let publicKey: P256PublicKey

    init(key: EVPKey) throws(CryptoError) {
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_is_a(key.pointer, "EC") == 1,
            EVP_PKEY_get_group_name(key.pointer, &name, name.count, &length) == 1,
            String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            ERR_clear_error()
            throw CryptoError(.unsupportedKey, "not a P-256 key")
        }
        func coordinate(_ name: String) throws(CryptoError) -> [UInt8] {
            let bytes = try key.bigEndianParameter(name)
            guard bytes.count <= P256PublicKey.coordinateByteCount else {
                throw CryptoError(.invalidKey, "a P-256 coordinate has 32 bytes")
            }
            return [UInt8](repeating: 0, count: P256PublicKey.coordinateByteCount - bytes.count) + bytes
        }
        self.key = key
        publicKey = try P256PublicKey(x: coordinate("qx"), y: coordinate("qy"))
    }

    /// Generates a new key from OpenSSL's random generator.
    /// - Throws: `CryptoError` `.keyGenerationFailed`.
    public static func generate() throws(CryptoError) -> P256PrivateKey {
        try generated("EC", kind: "P-256") { EVP_PKEY_CTX_set_group_name($0, "prime256v1") == 1 }
    }

    /// Signs SHA-256 of `message` without copying it.
    /// - Throws: `CryptoError` `.signingFailed`.
    public func sign(_ message: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8] {
        let der = try key.sign(message, digest: EVP_sha256())
        guard let raw = P256PublicKey.rawSignature(der: der) else {
            throw CryptoError(.signingFailed, "OpenSSL's ECDSA signature is not the DER the curve makes")
        }
        return raw
    }
}

extension P256PublicKey {
    /// The JWS form `r || s` (two 32-byte big-endian integers) of a DER `ECDSA-Sig-Value` (RFC 3279 section 2.2.3):
    /// the inverse of ``derSignature(raw:)``. Nil for anything but a SEQUENCE of two positive INTEGERs of at most 32
    /// significant bytes with one-byte lengths, and nothing after it.
    static func rawSignature(der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var index = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            index += 2
            guard length >= 1, length <= coordinateByteCount + 1, index + length <= der.count,
                der[index] & 0x80 == 0
            else { return nil }
            let value = der[index..<(index + length)].drop { $0 == 0 }
            guard value.count <= coordinateByteCount else { return nil }
            raw += [UInt8](repeating: 0, count: coordinateByteCount - value.count) + value
            index += length
        }
        return index == der.count ? raw : nil
    }
}
