/// Base32 (RFC 4648 §6, the upper-case alphabet `A–Z2–7`): how authenticator apps carry a TOTP secret.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The base32 text of `bytes`.
    /// - Parameter padded: whether to end with `=` to a multiple of 8 characters (RFC 4648 §6); an `otpauth://` URI
    ///   leaves it out (Google Authenticator's key URI format).
    public static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        if padded { while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base32 `text`: letters of either case, with or without `=` padding, spaces and hyphens (as
    /// people copy a secret) ignored; nil for any other character, padding in the middle, or a length no encoding
    /// makes (1, 3 or 6 characters left over) or with non-zero left-over bits.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var count = 0
        var padding = false
        for character in text.utf8 {
            if character == UInt8(ascii: " ") || character == UInt8(ascii: "-") { continue }
            if character == UInt8(ascii: "=") {
                padding = true
                continue
            }
            guard !padding, let value = value(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            count += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        // A whole number of bytes leaves 0, 2, 4, 1 or 3 bits over (8 characters per 5 bytes); the rest are zeros.
        guard ![1, 3, 6].contains(count % 8), buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): character - UInt8(ascii: "2") + 26
        default: nil
        }
    }
}
