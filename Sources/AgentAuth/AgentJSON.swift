/// The few JSON texts the agent surface writes: its bodies have fixed shapes and string, integer and
/// string-array values only, so they are written directly (the challenge body is on a hot path).
enum AgentJSON {
    /// A JSON string literal for `text`, quotes included, with `"`, `\` and control characters escaped.
    static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON array of strings.
    static func array(_ items: [String]) -> String {
        "[" + items.map(string).joined(separator: ",") + "]"
    }

    /// A JSON object from `(key, already-encoded value)` pairs, in order.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
