import COpenSSL

/// SHA-512 through OpenSSL's EVP interface: the hash of an Ed25519 ID token's `at_hash` (OpenID Connect Core 3.1.3.6
/// takes the hash of the signature algorithm, SHA-512 for Ed25519).
public enum SHA512 {
    /// The digest length in bytes.
    public static let byteCount = 64

    /// Returns the 64-byte SHA-512 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { oneShotDigest($0, EVP_sha512(), byteCount: byteCount, name: "SHA-512") }
    }
}
