import AuthCrypto

/// A key identified by `kid`, bound to one algorithm.
///
/// The binding is what makes verification safe: a token's `alg` header must equal the algorithm of
/// the key its `kid` names, so an RSA public key can never be used as an HMAC secret.
public struct JWTKey: Sendable, CustomStringConvertible {
    /// The key material.
    public enum Material: Sendable, CustomStringConvertible {
        /// An HMAC-SHA256 secret (at least 32 bytes): signs and verifies HS256.
        case hmac([UInt8])
        /// An RSA private key: signs and verifies RS256.
        case rsaPrivate(RSAPrivateKey)
        /// An RSA public key: verifies RS256 only.
        case rsaPublic(RSAPublicKey)
        /// An Ed25519 private key: signs and verifies EdDSA.
        case ed25519Private(Ed25519PrivateKey)
        /// An Ed25519 public key: verifies EdDSA only.
        case ed25519Public(Ed25519PublicKey)
        /// A P-256 private key: signs and verifies ES256.
        case p256Private(P256PrivateKey)
        /// A P-256 public key: verifies ES256 only.
        case p256Public(P256PublicKey)

        /// The kind of material, never the secret.
        public var description: String {
            switch self {
            case .hmac: return "hmac(redacted)"
            case .rsaPrivate: return "rsaPrivate(redacted)"
            case .rsaPublic: return "rsaPublic"
            case .ed25519Private: return "ed25519Private(redacted)"
            case .ed25519Public: return "ed25519Public"
            case .p256Private: return "p256Private(redacted)"
            case .p256Public: return "p256Public"
            }
        }
    }

    /// The shortest accepted HMAC secret, in bytes.
    public static let minimumHMACSecretLength = 32
    /// The longest accepted `kid`.
    public static let maximumKIDLength = 64

    /// The key id, 1 to 64 characters of `A-Z a-z 0-9 - _`.
    public let kid: String
    /// The key material.
    public let material: Material

    /// The one algorithm this key signs or verifies.
    public var algorithm: JWTAlgorithm {
        switch material {
        case .hmac: return .hs256
        case .rsaPrivate, .rsaPublic: return .rs256
        case .ed25519Private, .ed25519Public: return .edDSA
        case .p256Private, .p256Public: return .es256
        }
    }

    /// True when the key can sign (HMAC secret, RSA, Ed25519 or P-256 private key).
    public var canSign: Bool {
        switch material {
        case .rsaPublic, .ed25519Public, .p256Public: return false
        case .hmac, .rsaPrivate, .ed25519Private, .p256Private: return true
        }
    }

    /// The RSA public key, for RSA keys.
    public var rsaPublicKey: RSAPublicKey? {
        switch material {
        case .rsaPrivate(let key): return key.publicKey
        case .rsaPublic(let key): return key
        case .hmac, .ed25519Private, .ed25519Public, .p256Private, .p256Public: return nil
        }
    }

    /// The Ed25519 public key, for Ed25519 keys.
    public var ed25519PublicKey: Ed25519PublicKey? {
        switch material {
        case .ed25519Private(let key): return key.publicKey
        case .ed25519Public(let key): return key
        case .hmac, .rsaPrivate, .rsaPublic, .p256Private, .p256Public: return nil
        }
    }

    /// The P-256 public key, for P-256 keys.
    public var p256PublicKey: P256PublicKey? {
        switch material {
        case .p256Private(let key): return key.publicKey
        case .p256Public(let key): return key
        case .hmac, .rsaPrivate, .rsaPublic, .ed25519Private, .ed25519Public: return nil
        }
    }

    /// "JWTKey(<kid>, <alg>)", never the material.
    public var description: String { "JWTKey(\(kid), \(algorithm.rawValue))" }

    private init(kid: String, material: Material) throws(JWTError) {
        guard Self.isValidKID(kid) else {
            throw JWTError(.invalidKey, "kid must be 1 to 64 characters of A-Z a-z 0-9 - _")
        }
        self.kid = kid
        self.material = material
    }

    /// An HS256 key.
    /// - Throws: `JWTError` `.invalidKey` for a secret shorter than 32 bytes or an invalid kid.
    public static func hmac(kid: String, secret: [UInt8]) throws(JWTError) -> JWTKey {
        guard secret.count >= minimumHMACSecretLength else {
            throw JWTError(.invalidKey, "HMAC secret must be at least 32 bytes")
        }
        return try JWTKey(kid: kid, material: .hmac(secret))
    }

    /// An RS256 signing key.
    /// - Throws: `JWTError` `.invalidKey` for an invalid kid.
    public static func rsa(kid: String, privateKey: RSAPrivateKey) throws(JWTError) -> JWTKey {
        try JWTKey(kid: kid, material: .rsaPrivate(privateKey))
    }

    /// An RS256 verification-only key.
    /// - Throws: `JWTError` `.invalidKey` for an invalid kid.
    public static func rsa(kid: String, publicKey: RSAPublicKey) throws(JWTError) -> JWTKey {
        try JWTKey(kid: kid, material: .rsaPublic(publicKey))
    }

    /// An EdDSA (Ed25519) signing key.
    /// - Throws: `JWTError` `.invalidKey` for an invalid kid.
    public static func ed25519(kid: String, privateKey: Ed25519PrivateKey) throws(JWTError) -> JWTKey {
        try JWTKey(kid: kid, material: .ed25519Private(privateKey))
    }

    /// An EdDSA (Ed25519) verification-only key.
    /// - Throws: `JWTError` `.invalidKey` for an invalid kid.
    public static func ed25519(kid: String, publicKey: Ed25519PublicKey) throws(JWTError) -> JWTKey {
        try JWTKey(kid: kid, material: .ed25519Public(publicKey))
    }

    /// An ES256 (P-256) signing key.
    /// - Throws: `JWTError` `.invalidKey` for an invalid kid.
    public static func p256(kid: String, privateKey: P256PrivateKey) throws(JWTError) -> JWTKey {
        try JWTKey(kid: kid, material: .p256Private(privateKey))
    }

    /// An ES256 (P-256) verification-only key.
    /// - Throws: `JWTError` `.invalidKey` for an invalid kid.
    public static func p256(kid: String, publicKey: P256PublicKey) throws(JWTError) -> JWTKey {
        try JWTKey(kid: kid, material: .p256Public(publicKey))
    }

    /// True for 1 to 64 characters of `A-Z a-z 0-9 - _`.
    public static func isValidKID(_ kid: String) -> Bool {
        let utf8 = kid.utf8
        return !utf8.isEmpty && utf8.count <= maximumKIDLength
            && utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
    }
}

/// The name INTERFACES.md uses for a key that signs; the same type.
public typealias JWTSigningKey = JWTKey
