import Base64Coding
import Foundation

/// How ``MIMEComposer`` writes values into header fields so that none can end its field or change its structure:
/// quoted strings and RFC 2047 encoded words for free text, RFC 2231 for parameters, folding at 78 columns.
enum HeaderText {
    /// Lines are folded before an item that would pass this column (RFC 5322 2.1.1's "should").
    static let foldColumn = 78
    /// Longest name or word written as is; longer ones are written as encoded words, which fold.
    static let longestPlain = 256

    /// `name: item1<separator> item2...`, with a line break (folding whitespace) before an item that would pass
    /// ``foldColumn``. Unfolding gives back the items joined by `separator` and one space.
    static func fold(_ name: String, _ items: [String], separator: String) -> String {
        var output = name + ":"
        var column = output.utf8.count
        for (index, item) in items.enumerated() {
            let lead = index == 0 ? "" : separator
            if index > 0 && column + lead.utf8.count + 1 + item.utf8.count > foldColumn {
                output += lead + "\r\n " + item
                column = 1 + item.utf8.count
            } else {
                output += lead + " " + item
                column += lead.utf8.count + 1 + item.utf8.count
            }
        }
        return output
    }

    /// An unstructured field such as `Subject`: printable ASCII folded at its spaces, anything else (non-ASCII, a
    /// word too long to fold, text that would read as an encoded word) as encoded words. Control characters,
    /// CR and LF among them, become spaces first: a one-line field has no use for them.
    static func unstructured(_ name: String, _ text: String) -> String {
        let flat = singleLine(text)
        let words = flat.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if isPrintableASCII(flat), !flat.contains("=?"), words.allSatisfy({ $0.utf8.count <= longestPlain }) {
            return fold(name, words, separator: "")
        }
        return fold(name, encodedWords(flat), separator: "")
    }

    /// A display name (RFC 5322 `phrase`): a quoted string when it is printable ASCII of at most ``longestPlain``
    /// bytes, else encoded words. Never bare, so a comma, colon or angle bracket in it stays part of the name.
    static func phrase(_ text: String) -> String {
        let flat = singleLine(text)
        if isPrintableASCII(flat), !flat.contains("=?"), flat.utf8.count <= longestPlain {
            let escaped = flat.replacingOccurrences(of: "\\", with: "\\\\")
            return "\"" + escaped.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return encodedWords(flat).joined(separator: "\r\n ")
    }

    /// A file name parameter, each element one `name=value` to be joined with `;` and folding whitespace: a
    /// quoted string when the name is short printable ASCII without quotes or backslashes; otherwise, when
    /// `extended`, RFC 2231 `name*0*=UTF-8''...` sections, and when not (`Content-Type`'s `name`, which readers
    /// that know no RFC 2231 look at), encoded words in quotes.
    static func parameter(_ name: String, _ value: String, extended: Bool) -> [String] {
        let flat = singleLine(value)
        if isPrintableASCII(flat), !flat.contains("\""), !flat.contains("\\"), !flat.contains("=?"),
            flat.utf8.count <= longestPlain
        {
            return ["\(name)=\"\(flat)\""]
        }
        guard extended else { return ["\(name)=\"" + encodedWords(flat).joined(separator: "\r\n ") + "\""] }
        // RFC 2231 attribute-char: ASCII letters, digits and !#$&+-.^_`|~; everything else percent-encoded.
        let allowed = Set("!#$&+-.^_`|~".utf8)
        var sections: [String] = []
        var current = "UTF-8''"
        for character in flat {
            var piece = ""
            for byte in String(character).utf8 {
                let plain =
                    (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte)
                    || (0x61...0x7a).contains(byte) || allowed.contains(byte)
                piece += plain ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
            }
            if current.utf8.count + piece.utf8.count > 60 {
                sections.append(current)
                current = ""
            }
            current += piece
        }
        sections.append(current)
        return sections.enumerated().map { "\(name)*\($0.offset)*=\($0.element)" }
    }

    /// UTF-8 `B` encoded words of at most 45 bytes each (75 characters written, RFC 2047's limit), split
    /// between characters.
    static func encodedWords(_ text: String) -> [String] {
        var words: [[UInt8]] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if !chunk.isEmpty && chunk.count + bytes.count > 45 {
                words.append(chunk)
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?" + Base64.encode($0) + "?=" }
    }

    /// `text` with every control character but tab (C0, DEL, C1: CR and LF among them) and the Unicode line and
    /// paragraph separators replaced by a space.
    static func singleLine(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let breaks =
                scalar != "\t" && scalar.properties.generalCategory == .control
                || scalar == "\u{2028}" || scalar == "\u{2029}"
            scalars.append(breaks ? " " : scalar)
        }
        return String(scalars)
    }

    static func isPrintableASCII(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7f }
    }

    /// A character no bare header token may hold: whitespace or a control character, ASCII or not.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7f || scalar.properties.generalCategory == .control
            || scalar.properties.isWhitespace
    }

    /// An RFC 2045 token: printable ASCII without space or tspecials.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value < 0x7f && !"()<>@,;:\\\"/[]?=".unicodeScalars.contains($0)
            }
    }

    /// `type/subtype`, both RFC 2045 tokens.
    static func isMediaType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { isToken(String($0)) }
    }
}
