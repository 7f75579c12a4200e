import JSON

extension JSONValue {
    /// Indented JSON text for display (not for signing: members keep their order).
    func pretty(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .object(let members):
            if members.isEmpty { return "{}" }
            let lines = members.map { inner + JSONValue.string($0.0).description + ": " + $0.1.pretty(indent: inner) }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + $0.pretty(indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        default:
            return description
        }
    }
}
