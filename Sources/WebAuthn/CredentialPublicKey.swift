import AuthCrypto
import CBOR

/// A credential's public key, read from its COSE_Key (RFC 9052 section 7, RFC 9053): the algorithm named by the key,
/// checked to fit its key type and curve, and the OpenSSL key that checks its signatures.
///
/// Accepted: EC2 (`kty` 2) on P-256 (`crv` 1) with ES256; OKP (`kty` 1) on Ed25519 (`crv` 6) with EdDSA; RSA (`kty` 3)
/// of 2048 to 8192 bits with RS256. The algorithm always comes from the key, never from the response.
public struct CredentialPublicKey: Sendable {
    /// The key's algorithm (its COSE `alg`, label 3).
    public let algorithm: COSEAlgorithm
    let verifier: Verifier

    enum Verifier: Sendable {
        case p256(P256PublicKey)
        case ed25519(Ed25519PublicKey)
        case rsa(RSAPublicKey)
    }

    /// Reads a COSE key from its encoding (a stored credential's key).
    /// - Throws: ``WebAuthnError`` `.malformedPublicKey`, `.unsupportedAlgorithm` or `.algorithmMismatch`.
    public init(cose bytes: [UInt8], limits: CBORLimits = CBORLimits()) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder(limits: limits).decode(bytes) } catch { throw .malformedPublicKey }
        try self.init(cose: value)
    }

    /// Reads a decoded COSE key.
    /// - Throws: ``WebAuthnError`` `.malformedPublicKey`, `.unsupportedAlgorithm` or `.algorithmMismatch`.
    public init(cose key: CBORValue) throws(WebAuthnError) {
        guard key.mapEntries != nil, let keyType = key[int: 1]?.int64Value, let alg = key[int: 3]?.int64Value else {
            throw .malformedPublicKey
        }
        guard let algorithm = COSEAlgorithm(rawValue: alg) else { throw .unsupportedAlgorithm }
        self.algorithm = algorithm
        switch (keyType, algorithm) {
        case (2, .es256):
            guard key[int: -1]?.int64Value == 1, let x = key[int: -2]?.bytesValue, let y = key[int: -3]?.bytesValue,
                let loaded = try? P256PublicKey(x: x, y: y)
            else { throw .malformedPublicKey }
            verifier = .p256(loaded)
        case (1, .eddsa):
            guard key[int: -1]?.int64Value == 6, let x = key[int: -2]?.bytesValue,
                let loaded = try? Ed25519PublicKey(rawRepresentation: x)
            else { throw .malformedPublicKey }
            verifier = .ed25519(loaded)
        case (3, .rs256):
            guard let n = key[int: -1]?.bytesValue, let e = key[int: -2]?.bytesValue,
                let loaded = try? RSAPublicKey(modulus: n, exponent: e)
            else { throw .malformedPublicKey }
            verifier = .rsa(loaded)
        case (1, _), (2, _), (3, _):
            throw .algorithmMismatch
        default:
            throw .malformedPublicKey
        }
    }

    /// Whether `signature` is this key's signature of `message` under its algorithm: DER ECDSA for ES256, 64 raw bytes
    /// for EdDSA, PKCS#1 v1.5 for RS256.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        switch verifier {
        case .p256(let key): key.verifySHA256(derSignature: signature, message: message)
        case .ed25519(let key): key.verify(signature: signature, message: message)
        case .rsa(let key): key.verifySHA256(signature: signature, message: message)
        }
    }
}
