import JSON
import JWT

/// Escaping and formatting for server-rendered HTML.
enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'` so that `text` is inert in element content and in quoted
    /// attribute values.
    static func escape(_ text: String) -> String {
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

    /// Indented JSON text for display (not for signing: members keep their order).
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let members):
            if members.isEmpty { return "{}" }
            let lines = members.map { inner + JSONValue.string($0.0).description + ": " + pretty($0.1, indent: inner) }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        default:
            return value.description
        }
    }
}
