import AuthCrypto

/// The user codes of the device authorization grant (RFC 8628 section 6.1): 8 characters drawn uniformly from the 20
/// consonants the RFC suggests (no vowels, so no words; no digits, so nothing to confuse with a letter), about 34.6
/// bits, stored and compared in their normal form (`BCDFGHJK`) and shown as two groups of four (`BCDF-GHJK`). What
/// the owner types is read case-insensitively, with dashes and white space ignored. Pure but for ``random()``.
public enum OAuthUserCode {
    /// RFC 8628 section 6.1's alphabet, in the order a byte's value picks from it.
    public static let alphabet: [UInt8] = Array("BCDFGHJKLMNPQRSTVWXZ".utf8)
    /// Characters of a code.
    public static let length = 8
    /// The longest input ``normalised(_:)`` reads, bytes: a code with a dash and some spaces, never a page of text.
    public static let maxInputBytes = 64

    /// A new code from `RAND_bytes`.
    public static func random() -> String { make { SecureRandom.bytes($0) } }

    /// A code drawn from the bytes `bytes(count)` hands out: each byte below 240 (12 × 20, so that every letter is
    /// equally likely) picks `alphabet[byte % 20]`; the others are dropped and more are drawn.
    /// - Parameter bytes: a source of `count` random bytes.
    public static func make(bytes: (Int) -> [UInt8]) -> String {
        var code: [UInt8] = []
        while code.count < length {
            for byte in bytes(length) where byte < 240 && code.count < length {
                code.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(decoding: code, as: UTF8.self)
    }

    /// The normal form of what an owner typed (`bcdf-ghjk`, `BCDF GHJK`, `BCDFGHJK`): upper case, dashes and white
    /// space dropped; nil unless exactly ``length`` characters of ``alphabet`` remain.
    public static func normalised(_ input: String) -> String? {
        guard input.utf8.count <= maxInputBytes else { return nil }
        var code: [UInt8] = []
        for byte in input.utf8 {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                code.append(byte - 0x20)
            default:
                code.append(byte)
            }
        }
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return String(decoding: code, as: UTF8.self)
    }

    /// `code` (normal form) as shown: `BCDF-GHJK`.
    public static func displayed(_ code: String) -> String {
        guard code.count == length else { return code }
        return String(code.prefix(length / 2)) + "-" + String(code.suffix(length / 2))
    }
}
