/// The small JSON object an ``AuditEvent`` carries in `details`: string values only, each escaped (RFC 8259), in the
/// order given. Never put a secret in it.
public enum AuditDetails {
    /// `{"key":"value",...}` of `pairs`.
    public static func json(_ pairs: KeyValuePairs<String, String>) -> String {
        "{" + pairs.map { quoted($0.key) + ":" + quoted($0.value) }.joined(separator: ",") + "}"
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
