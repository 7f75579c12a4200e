import COpenSSL

/// An ECDSA P-256 public key (NIST P-256, `prime256v1`) that checks ES256 signatures: a JWK with `kty:"EC"`,
/// `crv:"P-256"` (RFC 7518 section 6.2.1), as identity providers publish them, or a COSE EC2 key, as passkeys do.
///
/// The two write a signature differently. JWS writes the two 32-byte big-endian integers `r || s` (RFC 7518 section
/// 3.4): ``verify(signature:message:)`` takes only the 64-byte form and converts it, so a DER signature (what a library
/// that forgot the conversion sends) is refused. WebAuthn sends the DER `ECDSA-Sig-Value` (RFC 3279 section 2.2.3)
/// that OpenSSL reads: ``verifySHA256(derSignature:message:)``.
///
/// Immutable after creation, so one instance may verify from many threads at once.
public final class P256PublicKey: Sendable {
    /// The length of each coordinate, and of each of `r` and `s`, in bytes.
    public static let coordinateByteCount = 32
    /// The length of every JWS signature, `r || s`, in bytes.
    public static let signatureByteCount = 64
    /// The longest DER signature of the curve (two 33-byte integers and their headers), in bytes.
    public static let maximumSignatureByteCount = 72

    let key: EVPKey
    /// The affine x coordinate, 32 bytes big-endian (JWK `x` before base64url).
    public let x: [UInt8]
    /// The affine y coordinate, 32 bytes big-endian (JWK `y` before base64url).
    public let y: [UInt8]

    /// Loads a public key from its coordinates (a JWK's decoded `x` and `y`).
    /// - Throws: `CryptoError` `.invalidKey` for coordinates that are not 32 bytes each or not a point of the curve.
    public init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == Self.coordinateByteCount, y.count == Self.coordinateByteCount else {
            throw CryptoError(.invalidKey, "a P-256 coordinate has 32 bytes")
        }
        // SEC 1 section 2.3.3's uncompressed point: 0x04 || x || y.
        let point = [0x04] + x + y
        let loaded = try EVPKey.fromData(algorithm: "EC", [("group", .utf8("prime256v1")), ("pub", .octets(point))])
        // fromdata decodes the point onto the curve (EC_POINT_oct2point refuses a point off it); the public check
        // says so again, and refuses the point at infinity.
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, loaded.pointer, nil) else {
            throw openSSLError(.invalidKey, "EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check(check) == 1 else { throw openSSLError(.invalidKey, "not a point of P-256") }
        key = loaded
        self.x = x
        self.y = y
    }

    /// Checks an ES256 signature, `r || s` (64 bytes), of `message` with SHA-256.
    ///
    /// Returns false for any failure, including a signature of another length (a DER one).
    public func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == Self.signatureByteCount else { return false }
        let der = Self.derSignature(raw: Array(signature))
        return der.withUnsafeBufferPointer { key.verify(signature: $0, message: message, digest: EVP_sha256()) }
    }

    /// Checks an ES256 signature without pointers.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBufferPointer { signature in
            message.withNonNullPointer { pointer, count in
                verify(signature: signature, message: UnsafeBufferPointer(start: pointer, count: count))
            }
        }
    }

    /// Checks a DER ECDSA signature (WebAuthn's) with SHA-256 of `message`.
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

    /// The DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279 section 2.2.3) of a JWS signature
    /// `r || s` (64 bytes): a positive INTEGER is its bytes without leading zeros, one zero put back when the first bit
    /// is set. Every length is below 128, so each is one byte.
    static func derSignature(raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let half = raw.count / 2
        let body = integer(raw[..<half]) + integer(raw[half...])
        return [0x30, UInt8(body.count)] + body
    }
}
