import AuthCrypto
import JSON

/// JSON Web Key helpers (RFC 7517, RFC 7638).
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

    /// The public JWK of `key`: `kty`, `kid`, `alg`, `use:"sig"`, `n`, `e`.
    public static func rsaPublicJWK(_ key: RSAPublicKey, kid: String) -> JSONValue {
        [
            "kty": "RSA", "kid": .string(kid), "alg": .string(JWTAlgorithm.rs256.rawValue), "use": "sig",
            "n": .string(Base64URL.encode(key.modulus)), "e": .string(Base64URL.encode(key.exponent)),
        ]
    }
}
