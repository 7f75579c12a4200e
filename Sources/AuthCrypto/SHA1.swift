import COpenSSL

/// SHA-1 through OpenSSL's EVP interface, for protocols that fix it where no secret rests on it (the WebSocket
/// handshake's `Sec-WebSocket-Accept`, RFC 6455 §4.2.2). Never for signatures, passwords or MACs.
public enum SHA1 {
    /// The digest length in bytes.
    public static let byteCount = 20

    /// Returns the 20-byte SHA-1 digest of `bytes`.
    public static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ digest($0) }) { return digest }
        return Array(bytes).withUnsafeBufferPointer { digest($0) }
    }

    private static func digest(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        oneShotDigest(input, EVP_sha1(), byteCount: byteCount, name: "SHA-1")
    }
}
