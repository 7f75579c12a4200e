import AuthCrypto

/// An app password's secret (issue 87 item 2): 28 lowercase letters from the system's random source, shown in seven
/// groups of four (`abcd-efgh-ijkl-mnop-qrst-uvwx-yzab`), 28 × log2(26) ≈ 131.6 bits, easy to type on a phone's
/// keyboard. What is stored is the SHA-256 digest of the 28 letters (a random secret needs no slow hash), so a
/// database read never yields a usable password.
///
/// A typed secret is read leniently (``normalized(_:)``): separators (`-`, spaces) dropped and upper case lowered, as a
/// person copies it; anything that is not then 28 ASCII letters is not an app password.
public enum AppPasswordSecret {
    /// Letters in a secret.
    public static let letterCount = 28
    /// Letters in a group of the shown form.
    public static let groupLength = 4

    /// A new secret in its shown form, each letter uniform over `a`–`z` (bytes ≥ 234 are drawn again: 234 = 9 × 26).
    /// - Parameter randomBytes: the source of random bytes (the system's; a test's fixed bytes).
    public static func generate(randomBytes: (Int) -> [UInt8] = SecureRandom.bytes) -> String {
        var letters: [UInt8] = []
        letters.reserveCapacity(letterCount)
        while letters.count < letterCount {
            for byte in randomBytes(letterCount) where byte < 234 && letters.count < letterCount {
                letters.append(UInt8(ascii: "a") + byte % 26)
            }
        }
        return shown(letters)
    }

    /// The 28 letters grouped by four with `-` between groups.
    static func shown(_ letters: [UInt8]) -> String {
        var text: [UInt8] = []
        for (index, letter) in letters.enumerated() {
            if index > 0, index % groupLength == 0 { text.append(UInt8(ascii: "-")) }
            text.append(letter)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The 28 lowercase letters `typed` holds once `-` and spaces are dropped and letters lowered; nil when it is not
    /// an app password's form (so is checked as no app password at all).
    public static func normalized(_ typed: String) -> [UInt8]? {
        guard typed.utf8.count <= 64 else { return nil }
        var letters: [UInt8] = []
        for byte in typed.utf8 {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"): letters.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): letters.append(byte + 32)
            default: return nil
            }
        }
        return letters.count == letterCount ? letters : nil
    }

    /// The stored digest of a secret's letters (``normalized(_:)``'s answer).
    public static func digest(_ letters: [UInt8]) -> [UInt8] { SHA256.hash(letters) }

    /// Whether `typed` is the secret whose digest is `stored`, compared in constant time.
    public static func matches(_ typed: String, digest stored: [UInt8]) -> Bool {
        guard let letters = normalized(typed) else { return false }
        return constantTimeEquals(digest(letters), stored)
    }
}
