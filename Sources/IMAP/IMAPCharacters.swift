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
