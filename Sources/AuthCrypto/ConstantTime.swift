import COpenSSL

/// Compares two byte strings in time that depends only on their lengths (OpenSSL `CRYPTO_memcmp`).
///
/// Use it for MACs, digests and tokens. Lengths are not secret: different lengths return `false` at once.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { a in
        b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
    }
}
