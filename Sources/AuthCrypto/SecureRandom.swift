import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// A failing CSPRNG leaves nothing safe to do, so failure stops the process.
    /// - Parameter count: the number of bytes, at least 0.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: invalid count")
        if count == 0 { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard RAND_bytes(buffer.baseAddress, Int32(count)) == 1 else {
                fatalError("RAND_bytes failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
            initialized = count
        }
    }

    /// Returns `byteCount` random bytes as lowercase hex (twice as many characters).
    public static func hex(byteCount: Int) -> String {
        Hex.encode(bytes(byteCount))
    }
}
