import AuthCrypto

/// Agent API keys: 32 random bytes, shown once, stored only as a SHA-256 digest (CONTRACT.md 1.3).
///
/// The text form is ``prefix`` followed by the unpadded base64url of the 32 bytes (43 characters), so
/// that secret scanners and people recognise a leaked key. The digest is SHA-256 of the whole text's
/// UTF-8 bytes, so lookup needs no parsing and any submitted string can be looked up safely.
public enum AgentAPIKey {
    /// Marks a Postern agent API key.
    public static let prefix = "postern_ak_"

    /// A new random key, as shown to the agent.
    public static func generate() -> String {
        prefix + Base64URL.encode(SecureRandom.bytes(32))
    }

    /// The stored form of `key`: SHA-256 of its UTF-8 bytes.
    public static func digest(_ key: String) -> [UInt8] {
        SHA256.hash(Array(key.utf8))
    }
}
