import COpenSSL
import COpenSSLInit

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

    /// Returns a random identifier: `byteCount` random bytes as lowercase hex (twice as many characters), for
    /// public values made on every request (challenge ids, `jti`). It is drawn from a per-thread pool that
    /// `RAND_bytes` fills 4 KiB at a time (`random_pool.c`), a tenth of the cost of a `RAND_bytes` call; never
    /// use it for a secret, which ``bytes(_:)`` draws when it is made.
    public static func identifier(byteCount: Int) -> String {
        precondition(byteCount >= 0 && byteCount <= 128, "SecureRandom.identifier: invalid count")
        if byteCount == 0 { return "" }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { buffer in
            guard postern_random_bytes(buffer.baseAddress!, byteCount) == 1 else {
                fatalError("RAND_bytes failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
            return Hex.encode(UnsafeBufferPointer(buffer))
        }
    }

    /// Returns `byteCount` random bytes as lowercase hex (twice as many characters).
    public static func hex(byteCount: Int) -> String {
        Hex.encode(bytes(byteCount))
    }
}
