/// Standard base64 with padding (RFC 4648 section 4), as SMTP's `AUTH` sends it; over the same codec as
/// ``Base64URL``, with `=` to a multiple of four characters.
public enum Base64 {
    /// Encodes `bytes` with the standard alphabet (`+`, `/`) and `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        let unpadded = Base64Codec.standard.encode(bytes)
        return unpadded + String(repeating: "=", count: (4 - unpadded.utf8.count % 4) % 4)
    }
}
