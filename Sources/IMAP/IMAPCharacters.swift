/// The byte classes of RFC 9051's formal syntax (§9) that the parser and the encoder share.
enum IMAPCharacters {
    /// `ATOM-CHAR`: any 7-bit character but `atom-specials` (`( ) { SP`, controls, `% *`, `" \`, `]`).
    static func isAtomChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F...0xFF: return false
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "%"), UInt8(ascii: "*"),
            UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "]"):
            return false
        default: return true
        }
    }

    /// `ASTRING-CHAR`: an atom character or `]`.
    static func isAstringChar(_ byte: UInt8) -> Bool { isAtomChar(byte) || byte == UInt8(ascii: "]") }

    /// A tag's character: an `ASTRING-CHAR` but `+`.
    static func isTagChar(_ byte: UInt8) -> Bool { isAstringChar(byte) && byte != UInt8(ascii: "+") }

    /// `list-char`: an atom character, a wildcard (`%`, `*`) or `]`.
    static func isListChar(_ byte: UInt8) -> Bool {
        isAstringChar(byte) || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "*")
    }
}

/// The ASCII bytes the target names.
enum ASCII {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `byte` in upper case when it is a lower-case ASCII letter.
    static func upper(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }
}
