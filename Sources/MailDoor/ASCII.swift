/// The ASCII bytes the mail doors' parsers name (IMAP's, POP3's).
package enum ASCII {
    package static let cr = UInt8(ascii: "\r")
    package static let lf = UInt8(ascii: "\n")
    package static let space = UInt8(ascii: " ")
    package static let quote = UInt8(ascii: "\"")
    package static let backslash = UInt8(ascii: "\\")
    package static let openParen = UInt8(ascii: "(")
    package static let closeParen = UInt8(ascii: ")")

    package static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `byte` in upper case when it is a lower-case ASCII letter.
    package static func upper(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }
}
