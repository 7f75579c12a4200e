import MailDoor

/// A cursor over one framed command (``IMAPFramerEvent/command(_:)``) that reads RFC 9051's tokens: atoms,
/// quoted strings, literals, numbers. Every failure is an ``IMAPCommandError`` naming what was expected.
struct IMAPCommandReader {
    let bytes: [UInt8]
    let limits: IMAPLimits
    private(set) var index = 0
    /// How deeply the parentheses now open nest.
    private var depth = 0

    init(_ bytes: [UInt8], limits: IMAPLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    var isAtEnd: Bool { index >= bytes.count }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Whether the next byte is `byte`; consumes it when it is.
    mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(IMAPCommandError) {
        guard take(byte) else { throw .syntax(what) }
    }

    /// Exactly one SP.
    mutating func space() throws(IMAPCommandError) { try expect(ASCII.space, "a space") }

    /// The end of the command: nothing may follow.
    mutating func end() throws(IMAPCommandError) {
        guard isAtEnd else { throw .syntax("the end of the command") }
    }

    /// Opens a parenthesis, counting the nesting against ``IMAPLimits/maxNestingDepth``.
    mutating func open() throws(IMAPCommandError) {
        try expect(ASCII.openParen, "(")
        depth += 1
        guard depth <= limits.maxNestingDepth else { throw .nestingTooDeep }
    }

    mutating func close() throws(IMAPCommandError) {
        try expect(ASCII.closeParen, ")")
        depth -= 1
    }

    /// Counts one level of nesting that has no parenthesis (`NOT`, `OR`).
    mutating func descend() throws(IMAPCommandError) {
        depth += 1
        guard depth <= limits.maxNestingDepth else { throw .nestingTooDeep }
    }

    mutating func ascend() { depth -= 1 }

    /// Closes a parenthesis when one comes next.
    mutating func takeClose() -> Bool {
        guard take(ASCII.closeParen) else { return false }
        depth -= 1
        return true
    }

    /// The bytes while `accept` holds (possibly none).
    mutating func span(_ accept: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count && accept(bytes[index]) { index += 1 }
        return bytes[start..<index]
    }

    /// `atom`: one or more atom characters, as text.
    mutating func atom(_ what: String = "an atom") throws(IMAPCommandError) -> String {
        let run = span(IMAPCharacters.isAtomChar)
        guard !run.isEmpty else { throw .syntax(what) }
        return String(decoding: run, as: UTF8.self)
    }

    /// An atom in upper case: a command name, a keyword of the grammar.
    mutating func keyword(_ what: String = "a keyword") throws(IMAPCommandError) -> String {
        let run = span(IMAPCharacters.isAtomChar)
        guard !run.isEmpty else { throw .syntax(what) }
        return String(decoding: run.map(ASCII.upper), as: UTF8.self)
    }

    /// Whether `word` (upper case) comes next, followed by a delimiter; consumes it when it does.
    mutating func take(word: String) -> Bool {
        let word = Array(word.utf8)
        guard index + word.count <= bytes.count else { return false }
        for (offset, byte) in word.enumerated() where ASCII.upper(bytes[index + offset]) != byte { return false }
        let after = index + word.count
        if after < bytes.count && IMAPCharacters.isAtomChar(bytes[after]) && IMAPCharacters.isAtomChar(word.last!) {
            return false
        }
        index = after
        return true
    }

    /// Whether `text` (upper case) comes next, whatever follows it; consumes it when it does.
    mutating func take(prefix text: String) -> Bool {
        let text = Array(text.utf8)
        guard index + text.count <= bytes.count else { return false }
        for (offset, byte) in text.enumerated() where ASCII.upper(bytes[index + offset]) != byte { return false }
        index += text.count
        return true
    }

    /// `number`: 1 to 10 digits whose value fits 32 bits.
    mutating func number() throws(IMAPCommandError) -> UInt32 {
        let value = try number64()
        guard value <= UInt64(UInt32.max) else { throw .syntax("a 32-bit number") }
        return UInt32(value)
    }

    /// `nz-number`: a number other than 0.
    mutating func nonZeroNumber() throws(IMAPCommandError) -> UInt32 {
        let value = try number()
        guard value != 0 else { throw .syntax("a non-zero number") }
        return value
    }

    /// `number64`: up to 19 digits (RFC 9051).
    mutating func number64() throws(IMAPCommandError) -> UInt64 {
        let run = span(ASCII.isDigit)
        guard !run.isEmpty, run.count <= 19 else { throw .syntax("a number") }
        return run.reduce(0) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
    }

    /// `string`: a quoted string or a literal, as bytes.
    mutating func string() throws(IMAPCommandError) -> [UInt8] {
        switch peek() {
        case ASCII.quote: return try quoted()
        case UInt8(ascii: "{"), UInt8(ascii: "~"): return try literal()
        default: throw .syntax("a string")
        }
    }

    /// `astring`: an atom (with `]`) or a string, as bytes.
    mutating func astring() throws(IMAPCommandError) -> [UInt8] {
        if let byte = peek(), IMAPCharacters.isAstringChar(byte) { return Array(span(IMAPCharacters.isAstringChar)) }
        return try string()
    }

    /// `astring` as UTF-8 text.
    mutating func astringText() throws(IMAPCommandError) -> String { try Self.text(astring()) }

    /// `nstring`: `NIL` (nil) or a string.
    mutating func nstring() throws(IMAPCommandError) -> [UInt8]? {
        if take(word: "NIL") { return nil }
        return try string()
    }

    /// `quoted`: `"` ... `"` with `\"` and `\\` escapes; no CR, LF or NUL; UTF-8 allowed (RFC 9051).
    mutating func quoted() throws(IMAPCommandError) -> [UInt8] {
        try expect(ASCII.quote, "a quoted string")
        var out: [UInt8] = []
        while let byte = peek() {
            index += 1
            switch byte {
            case ASCII.quote:
                return out
            case ASCII.backslash:
                guard let escaped = peek(), escaped == ASCII.quote || escaped == ASCII.backslash else {
                    throw .syntax("\\\" or \\\\ after a backslash")
                }
                index += 1
                out.append(escaped)
            case 0x00, ASCII.cr, ASCII.lf:
                throw .syntax("a quoted string without CR, LF or NUL")
            default:
                out.append(byte)
            }
        }
        throw .syntax("a closing quote")
    }

    /// `literal` (`{n}` or `{n+}` CRLF, then n bytes) or `literal8` (`~{n}`), as the framer left it.
    mutating func literal() throws(IMAPCommandError) -> [UInt8] {
        _ = take(UInt8(ascii: "~"))
        try expect(UInt8(ascii: "{"), "a literal")
        let size = try number64()
        _ = take(UInt8(ascii: "+"))
        try expect(UInt8(ascii: "}"), "}")
        try expect(ASCII.cr, "CRLF after a literal's size")
        try expect(ASCII.lf, "CRLF after a literal's size")
        guard size <= UInt64(bytes.count - index) else { throw .syntax("the literal's bytes") }
        let start = index
        index += Int(size)
        return Array(bytes[start..<index])
    }

    /// `bytes` as text, refused when not UTF-8.
    static func text(_ bytes: [UInt8]) throws(IMAPCommandError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }
}
