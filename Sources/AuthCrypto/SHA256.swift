import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    public static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ digest($0) }) { return digest }
        return Array(bytes).withUnsafeBufferPointer { digest($0) }
    }

    /// Returns the 32-byte SHA-256 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { digest($0) }
    }

    private static func digest(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            var length: UInt32 = 0
            // EVP_Digest with SHA-256 only fails on allocation failure inside OpenSSL.
            guard EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil) == 1,
                length == byteCount
            else {
                fatalError("EVP_Digest(SHA-256) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
            initialized = byteCount
        }
    }
}
