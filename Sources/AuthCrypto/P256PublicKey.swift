import COpenSSL

/// A NIST P-256 (secp256r1) public key that checks ECDSA signatures with SHA-256 in their DER form
/// (`Ecdsa-Sig-Value`, RFC 3279 section 2.2.3), as WebAuthn's ES256 sends them (JOSE's ES256 uses the raw `r || s`
/// instead; this type does not take that form).
///
/// Immutable after creation, so one instance may verify from many threads at once.
public final class P256PublicKey: Sendable {
    /// The length of one affine coordinate, in bytes.
    public static let coordinateByteCount = 32
    /// The longest DER signature of the curve (two 33-byte integers and their headers), in bytes.
    public static let maximumSignatureByteCount = 72

    let key: EVPKey
    /// The affine x coordinate, big-endian, 32 bytes (COSE's `-2`).
    public let x: [UInt8]
    /// The affine y coordinate, big-endian, 32 bytes (COSE's `-3`).
    public let y: [UInt8]

    /// Loads a public key from its affine coordinates (a COSE EC2 key's `x` and `y`).
    /// - Throws: `CryptoError` `.invalidKey` for coordinates that are not 32 bytes each or a point not on the curve.
    public init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == Self.coordinateByteCount, y.count == Self.coordinateByteCount else {
            throw CryptoError(.invalidKey, "a P-256 coordinate has 32 bytes")
        }
        // SEC 1 section 2.3.3: the uncompressed point 0x04 || x || y.
        let point = [0x04] + x + y
        // The builder keeps pointers to what it is given until OSSL_PARAM_BLD_to_param: build runs inside the scope.
        let loaded = try point.withUnsafeBytes { point in
            Result { () throws(CryptoError) in
                try KeyParameters.build(keyType: "EC") { builder throws(CryptoError) in
                    guard
                        OSSL_PARAM_BLD_push_utf8_string(
                            builder, KeyParameters.name("group"), KeyParameters.name("prime256v1"), 0) == 1,
                        OSSL_PARAM_BLD_push_octet_string(
                            builder, KeyParameters.name("pub"), point.baseAddress, point.count) == 1
                    else { throw openSSLError(.invalidKey, "building the P-256 key's parameters") }
                }
            }
        }.get()
        key = loaded
        self.x = x
        self.y = y
        try key.checkPublicKey()
    }

    /// Checks a DER ECDSA signature with SHA-256 of `message`.
    ///
    /// Returns false for any failure: a signature that is not DER (OpenSSL refuses a non-canonical encoding too),
    /// longer than ``maximumSignatureByteCount``, or not this key's.
    public func verifySHA256(derSignature: [UInt8], message: [UInt8]) -> Bool {
        guard !derSignature.isEmpty, derSignature.count <= Self.maximumSignatureByteCount else { return false }
        return derSignature.withUnsafeBufferPointer { signature in
            message.withNonNullPointer { pointer, count in
                key.verify(
                    signature: signature, message: UnsafeBufferPointer(start: pointer, count: count),
                    digest: EVP_sha256())
            }
        }
    }
}

/// Builds a public key from OpenSSL's named parameters (`EVP_PKEY_fromdata`).
///
/// `OSSL_PARAM_BLD` keeps pointers to the names, buffers and `BIGNUM`s it is given, and the parameter array keeps the
/// names: so every name is a static string (``name(_:)``), and callers push buffers and numbers that outlive the call
/// of ``build(keyType:_:)``.
enum KeyParameters {
    /// A parameter name or text value whose storage lives as long as the program.
    static func name(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// A public key of `keyType` ("EC", "RSA") from the parameters `push` adds to a builder.
    /// - Throws: `CryptoError` `.invalidKey` when OpenSSL refuses the parameters, or what `push` throws.
    static func build(
        keyType: String, _ push: (OpaquePointer) throws(CryptoError) -> Void
    ) throws(CryptoError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw openSSLError(.invalidKey, "OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        try push(builder)
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw openSSLError(.invalidKey, "OSSL_PARAM_BLD_to_param")
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, keyType, nil) else {
            throw openSSLError(.invalidKey, "EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, postern_EVP_PKEY_PUBLIC_KEY(), parameters) == 1, let key
        else { throw openSSLError(.invalidKey, "loading the \(keyType) public key") }
        return EVPKey(taking: key)
    }
}

extension EVPKey {
    /// Checks that a public key is valid for its type (for EC: the point is on the curve, not at infinity).
    /// - Throws: `CryptoError` `.invalidKey`.
    func checkPublicKey() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw openSSLError(.invalidKey, "EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else { throw openSSLError(.invalidKey, "the public key check") }
    }
}
