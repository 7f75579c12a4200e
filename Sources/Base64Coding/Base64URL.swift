/// Base64url without padding (RFC 4648 section 5, as JOSE uses it).
public enum Base64URL {
    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.url.encode(bytes)
    }

    /// Appends the unpadded encoding of `bytes` to `output` as ASCII bytes (no intermediate String).
    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) {
        Base64Codec.url.encode(bytes, into: &output)
    }

    /// Decodes unpadded base64url; nil for padding, any character outside the alphabet, or a
    /// non-canonical ending (so that one byte string has exactly one accepted text).
    public static func decode(_ text: String) -> [UInt8]? {
        Base64Codec.url.decode(text)
    }

    /// Decodes unpadded base64url from ASCII bytes; same rules as `decode(_:)`.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        Base64Codec.url.decode(text)
    }
}
