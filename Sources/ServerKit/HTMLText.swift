/// Escaping for server-rendered HTML.
public enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'` so that `text` is inert in element content and in quoted
    /// attribute values.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` (an email address, or a name and address) escaped as ``escape(_:)`` does, with a `<wbr>` line break
    /// opportunity before each `@` and after each `.`: a narrow column wraps an address at those points and never
    /// inside a word (`ada-bot@<wbr>agents.<wbr>example`). The text is unchanged for a reader, a copy or a search: a
    /// `<wbr>` adds no character.
    public static func address(_ text: String) -> String {
        var out = ""
        for character in text {
            if character == "@" { out += "<wbr>" }
            out += escape(String(character))
            if character == "." { out += "<wbr>" }
        }
        return out
    }
}
