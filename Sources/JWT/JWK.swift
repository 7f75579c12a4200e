import AuthCrypto
import JSON

/// JSON Web Key helpers (RFC 7517, RFC 7638, RFC 8037).
public enum JWK {
    /// The RFC 7638 thumbprint of an RSA public key: base64url(SHA-256(`{"e":..,"kty":"RSA","n":..}`)).
    /// - Parameters:
    ///   - modulus: big-endian modulus without leading zeros.
    ///   - exponent: big-endian public exponent without leading zeros.
    public static func rsaThumbprint(modulus: [UInt8], exponent: [UInt8]) -> String {
        let canonical: JSONValue = [
            "e": .string(Base64URL.encode(exponent)), "kty": "RSA", "n": .string(Base64URL.encode(modulus)),
        ]
        return Base64URL.encode(SHA256.hash(canonical.serialize()))
    }

    /// The RFC 7638 thumbprint of `key`.
    public static func thumbprint(of key: RSAPublicKey) -> String {
        rsaThumbprint(modulus: key.modulus, exponent: key.exponent)
    }

    /// The RFC 7638 thumbprint of an Ed25519 public key (RFC 8037 section 2):
    /// base64url(SHA-256(`{"crv":"Ed25519","kty":"OKP","x":..}`)).
    /// - Parameter x: the 32-byte public key (RFC 8032 encoding).
    public static func okpThumbprint(x: [UInt8]) -> String {
        let canonical: JSONValue = ["crv": "Ed25519", "kty": "OKP", "x": .string(Base64URL.encode(x))]
        return Base64URL.encode(SHA256.hash(canonical.serialize()))
    }

    /// The RFC 7638 thumbprint of `key`.
    public static func thumbprint(of key: Ed25519PublicKey) -> String {
        okpThumbprint(x: key.rawRepresentation)
    }

    /// The public JWK of `key` (RFC 8037): `kty:"OKP"`, `kid`, `alg:"EdDSA"`, `use:"sig"`, `crv:"Ed25519"`, `x`.
    public static func okpPublicJWK(_ key: Ed25519PublicKey, kid: String) -> JSONValue {
        [
            "kty": "OKP", "kid": .string(kid), "alg": .string(JWTAlgorithm.edDSA.rawValue), "use": "sig",
            "crv": "Ed25519", "x": .string(Base64URL.encode(key.rawRepresentation)),
        ]
    }

    /// The RFC 7638 thumbprint of a P-256 public key (section 3.2's members for `EC`):
    /// base64url(SHA-256(`{"crv":"P-256","kty":"EC","x":..,"y":..}`)).
    public static func thumbprint(of key: P256PublicKey) -> String {
        let canonical: JSONValue = [
            "crv": "P-256", "kty": "EC", "x": .string(Base64URL.encode(key.x)), "y": .string(Base64URL.encode(key.y)),
        ]
        return Base64URL.encode(SHA256.hash(canonical.serialize()))
    }

    /// The public JWK of `key` (RFC 7518 section 6.2): `kty:"EC"`, `kid`, `alg:"ES256"`, `use:"sig"`, `crv:"P-256"`,
    /// `x`, `y`.
    public static func ecPublicJWK(_ key: P256PublicKey, kid: String) -> JSONValue {
        [
            "kty": "EC", "kid": .string(kid), "alg": .string(JWTAlgorithm.es256.rawValue), "use": "sig",
            "crv": "P-256", "x": .string(Base64URL.encode(key.x)), "y": .string(Base64URL.encode(key.y)),
        ]
    }

    /// The public JWK of `key`: `kty`, `kid`, `alg`, `use:"sig"`, `n`, `e`.
    public static func rsaPublicJWK(_ key: RSAPublicKey, kid: String) -> JSONValue {
        [
            "kty": "RSA", "kid": .string(kid), "alg": .string(JWTAlgorithm.rs256.rawValue), "use": "sig",
            "n": .string(Base64URL.encode(key.modulus)), "e": .string(Base64URL.encode(key.exponent)),
        ]
    }
}
