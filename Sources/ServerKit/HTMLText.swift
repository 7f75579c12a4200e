/// Escaping for server-rendered HTML.
public enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'` so that `text` is inert in element content and in quoted
    /// attribute values.
    ///
    /// Works on the UTF-8 bytes: the five are ASCII, and no byte of a multi-byte character is ASCII, so every other
    /// byte is copied as it is. Text with none of the five (most of it) comes back as it is, without a copy.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: isSpecial) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 { append(byte, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` (an email address, or a name and address) escaped as ``escape(_:)`` does, with a `<wbr>` line break
    /// opportunity before each `@` and after each `.`: a narrow column wraps an address at those points and never
    /// inside a word (`ada-bot@<wbr>agents.<wbr>example`). The text is unchanged for a reader, a copy or a search: a
    /// `<wbr>` adds no character.
    public static func address(_ text: String) -> String {
        // ASCII (every address, most names): bytes are characters. Otherwise a `.` may begin a character with a
        // combining mark, which is not a full stop: characters, one at a time.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            var out = ""
            for character in text {
                if character == "@" { out += "<wbr>" }
                out += escape(String(character))
                if character == "." { out += "<wbr>" }
            }
            return out
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 32)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "@") { out.append(contentsOf: "<wbr>".utf8) }
            append(byte, to: &out)
            if byte == UInt8(ascii: ".") { out.append(contentsOf: "<wbr>".utf8) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        default: false
        }
    }

    private static func append(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
        case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
        case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
        case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
        case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
        default: out.append(byte)
        }
    }
}
