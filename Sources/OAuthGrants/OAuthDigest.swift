import AuthCrypto

/// How codes, refresh tokens and client secrets are stored: the SHA-256 of the string the client holds, so that a
/// database read yields nothing usable. The values are 256 random bits, which a fast digest protects.
public enum OAuthDigest {
    /// The stored digest of `token`.
    public static func of(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }

    /// A new secret value: 32 random bytes, base64url (43 characters).
    public static func newToken() -> String { Base64URL.encode(SecureRandom.bytes(32)) }
}
