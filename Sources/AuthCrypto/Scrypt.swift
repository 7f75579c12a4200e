import CScrypt

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// scrypt (RFC 7914) through libscrypt.
public enum Scrypt {
    /// Derives `length` bytes from `password` and `salt`.
    ///
    /// Memory use is about `128 * r * n` bytes; callers pick costs, this function only checks that
    /// they are valid for scrypt. CPU-heavy: run it on a bounded pool, not on an I/O thread.
    /// - Parameters:
    ///   - n: CPU/memory cost, a power of two greater than 1.
    ///   - r: block size, at least 1.
    ///   - p: parallelism, at least 1, with `r * p < 2^30`.
    ///   - length: output length, 1 through 4096 bytes.
    /// - Throws: `CryptoError` `.invalidParameters` for invalid costs, `.scryptFailed` when libscrypt fails.
    public static func derive(
        password: [UInt8], salt: [UInt8], n: UInt64, r: UInt32, p: UInt32, length: Int
    ) throws(CryptoError) -> [UInt8] {
        guard n > 1, n & (n - 1) == 0, r >= 1, p >= 1, UInt64(r) * UInt64(p) < 1 << 30,
            length >= 1, length <= 4096, n <= UInt64(Int.max) / 128 / UInt64(r)
        else {
            throw CryptoError(.invalidParameters, "scrypt: invalid cost parameters or output length")
        }
        var failure: Int32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            let result = password.withNonNullPointer { password, passwordCount in
                salt.withNonNullPointer { salt, saltCount in
                    libscrypt_scrypt(password, passwordCount, salt, saltCount, n, r, p, buffer.baseAddress, length)
                }
            }
            if result == 0 {
                initialized = length
            } else {
                failure = errno
                initialized = 0
            }
        }
        guard output.count == length else {
            throw CryptoError(.scryptFailed, "scrypt: libscrypt failed (errno \(failure))")
        }
        return output
    }
}
