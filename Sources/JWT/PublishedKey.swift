import AuthCrypto
import JSON

/// A public key another issuer publishes in its JWKS (RFC 7517), such as an identity provider's id_token keys: it
/// verifies only, and is bound to the one algorithm of its type, so that the algorithm comes from the key, never from a
/// token's header (an RSA key is never an HMAC secret, and `none` names no key).
public struct PublishedKey: Sendable {
    /// The signature algorithms a published key verifies.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        /// RSASSA-PKCS1-v1_5 with SHA-256, an RSA key of 2048 to 8192 bits (`kty:"RSA"`).
        case rs256 = "RS256"
        /// ECDSA P-256 with SHA-256, the signature as `r || s` (`kty:"EC"`, `crv:"P-256"`).
        case es256 = "ES256"
        /// Ed25519 (`kty:"OKP"`, `crv:"Ed25519"`, RFC 8037).
        case edDSA = "EdDSA"
    }

    /// The key material.
    public enum Material: Sendable {
        /// An RSA public key: RS256.
        case rsa(RSAPublicKey)
        /// A P-256 public key: ES256.
        case p256(P256PublicKey)
        /// An Ed25519 public key: EdDSA.
        case ed25519(Ed25519PublicKey)
    }

    /// The key's `kid`, as published (any string); nil when it has none.
    public let kid: String?
    /// The key material.
    public let material: Material

    /// Wraps `material`.
    public init(kid: String?, material: Material) {
        self.kid = kid
        self.material = material
    }

    /// The one algorithm this key verifies.
    public var algorithm: Algorithm {
        switch material {
        case .rsa: return .rs256
        case .p256: return .es256
        case .ed25519: return .edDSA
        }
    }

    /// Whether `kid` is this key's, compared byte for byte (String's `==` would take canonically equivalent spellings).
    func isNamed(_ kid: String) -> Bool {
        self.kid.map { $0.utf8.elementsEqual(kid.utf8) } ?? false
    }

    /// Whether `signature` is this key's signature of `message` under its algorithm.
    func verifies(signature: [UInt8], message: UnsafeBufferPointer<UInt8>) -> Bool {
        signature.withUnsafeBufferPointer { signature in
            switch material {
            case .rsa(let key): return key.verifySHA256(signature: signature, message: message)
            case .p256(let key): return key.verify(signature: signature, message: message)
            case .ed25519(let key): return key.verify(signature: signature, message: message)
            }
        }
    }

    /// The key a JWK describes, nil for one this server cannot use to verify: another `kty` or curve, a `use` other
    /// than `sig`, an `alg` other than its type's one algorithm, `key_ops` without `verify`, or material that does not
    /// load (bad base64url, an RSA key under 2048 bits, a point off the curve). A provider may publish such keys next
    /// to the ones it signs id_tokens with; they are skipped, not fatal.
    static func reading(_ jwk: JSONValue) -> PublishedKey? {
        guard jwk.objectValue != nil else { return nil }
        if let use = jwk["use"], use.stringValue != "sig" { return nil }
        if let operations = jwk["key_ops"] {
            guard let operations = operations.arrayValue, operations.contains(where: { $0.stringValue == "verify" })
            else { return nil }
        }
        var kid: String?
        if let value = jwk["kid"] {
            guard let text = value.stringValue, text.utf8.count <= 256 else { return nil }
            kid = text
        }
        func bytes(_ name: String) -> [UInt8]? { jwk[name]?.stringValue.flatMap { Base64URL.decode($0) } }
        let material: Material?
        switch (jwk["kty"]?.stringValue, jwk["crv"]?.stringValue) {
        case ("RSA"?, _):
            material = bytes("n").flatMap { n in
                bytes("e").flatMap { e in (try? RSAPublicKey(modulus: n, exponent: e)).map(Material.rsa) }
            }
        case ("EC"?, "P-256"?):
            material = bytes("x").flatMap { x in
                bytes("y").flatMap { y in (try? P256PublicKey(x: x, y: y)).map(Material.p256) }
            }
        case ("OKP"?, "Ed25519"?):
            material = bytes("x").flatMap { x in (try? Ed25519PublicKey(rawRepresentation: x)).map(Material.ed25519) }
        default:
            material = nil
        }
        guard let material else { return nil }
        let key = PublishedKey(kid: kid, material: material)
        if let alg = jwk["alg"], alg.stringValue != key.algorithm.rawValue { return nil }
        return key
    }
}
