/// How the audit trail shows text that someone else typed (an email at the sign-in form, a domain, a client address):
/// a reader's terminal or page trusts its layout, so no control character reaches it raw.
///
/// A control character here is any of C0 (U+0000 to U+001F), DEL (U+007F), C1 (U+0080 to U+009F), the line and
/// paragraph separators (U+2028, U+2029) and the bidirectional formatting characters (U+200E, U+200F, U+202A to
/// U+202E, U+2066 to U+2069), which reorder a line as it is shown. A line feed typed at a form would otherwise forge a
/// whole event line in `postern audit`, and an escape sequence would drive the operator's terminal.
public enum AuditText {
    /// Whether `scalar` is a control character (see the type's comment).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `text` holds a control character.
    public static func containsControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with each control character written `\u{XX}` (its code point in upper-case hexadecimal, at least two
    /// digits): one line, nothing a terminal acts on. Every other character is kept, a backslash too, so this is
    /// for display; `postern audit --json` gives the exact text.
    public static func escaped(_ text: String) -> String {
        replacingControls(in: text) { "\\u{\(hex($0.value, digits: 2))}" }
    }

    /// `json` (a serialized JSON text) with each control character written as a `\uXXXX` escape. JSON's rules escape
    /// C0 only; DEL, C1 and the separators may stand raw in a string, and this turns them into escapes that parse to
    /// the same string, so a JSON line reaches a terminal as safely as a text line.
    public static func terminalSafeJSON(_ json: [UInt8]) -> [UInt8] {
        let text = String(decoding: json, as: UTF8.self)
        guard containsControl(text) else { return json }
        // Outside a string JSON holds no such character, and inside one `\uXXXX` means the same character.
        return Array(replacingControls(in: text) { "\\u\(hex($0.value, digits: 4).lowercased())" }.utf8)
    }

    /// `text` with each control character replaced by what `escape` writes for it.
    private static func replacingControls(in text: String, _ escape: (Unicode.Scalar) -> String) -> String {
        guard containsControl(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
