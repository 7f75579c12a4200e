import AuthCrypto

/// HOTP (RFC 4226): a counter-based one-time code, HMAC-SHA1 of the counter, dynamically truncated (§5.3) to
/// `digits` decimal digits.
public enum HOTP {
    /// The code of `secret` at `counter`, `digits` long with leading zeros.
    /// - Precondition: `digits` is from 6 to 9 (RFC 4226 asks for 6 at least; 10 overflows the 31-bit value).
    public static func code(secret: [UInt8], counter: UInt64, digits: Int) -> String {
        precondition((6...9).contains(digits), "HOTP digits must be from 6 to 9")
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * $0)) }
        let mac = HMACSHA1.authenticationCode(key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
