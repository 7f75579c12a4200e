/// Checks that bytes are well-formed UTF-8 (RFC 3629: shortest forms only, no surrogates, nothing past U+10FFFF)
/// when they arrive in pieces, a sequence split across pieces included, as a text message's fragments do. Fails as
/// soon as a byte cannot continue any valid sequence (RFC 6455 §8.1 asks to fail fast).
public struct UTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected in the current sequence.
    private var needed = 0
    /// The range the next continuation byte must fall in (narrower after E0, ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at the start of a text.
    public init() {}

    /// Whether the bytes so far end on a character boundary.
    public var isComplete: Bool { needed == 0 }

    /// Takes the next piece; returns false when the text cannot be valid UTF-8 any more (the validator is then
    /// spent).
    public mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        for byte in bytes {
            if needed == 0 {
                if byte < 0x80 { continue }
                lower = 0x80
                upper = 0xBF
                switch byte {
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                guard byte >= lower && byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    /// Whether `bytes` are, whole, valid UTF-8.
    public static func isValid<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var validator = UTF8Validator()
        return validator.feed(bytes) && validator.isComplete
    }
}
