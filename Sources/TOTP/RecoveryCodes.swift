import AuthCrypto

/// Recovery codes (issue 88 item 3): ten one-time codes shown once when a second factor is turned on, each of
/// 10 base32 characters (50 random bits) shown as two groups of five (`abcde-fghij`). Only their SHA-256 digests are
/// stored; a code typed in either case, with or without the hyphen and spaces, digests the same.
public enum RecoveryCodes {
    /// How many codes a set holds.
    public static let count = 10

    /// A new set of ``count`` codes, as they are shown.
    public static func generate() -> [String] {
        (0..<count).map { _ in
            let text = Base32.encode(SecureRandom.bytes(7), padded: false).lowercased()
            let characters = Array(text.prefix(10))
            return String(characters[0..<5]) + "-" + String(characters[5..<10])
        }
    }

    /// The digest stored for `code`: SHA-256 of its 10 characters, lower-cased, without hyphens and spaces; nil when
    /// what is left is not 10 base32 characters (so a TOTP code is never taken for one).
    public static func digest(_ code: String) -> [UInt8]? {
        let normalized = code.lowercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
        guard normalized.count == 10,
            normalized.allSatisfy({ Base32.alphabet.contains($0 >= UInt8(ascii: "a") ? $0 - 32 : $0) })
        else { return nil }
        return SHA256.hash(normalized)
    }
}
