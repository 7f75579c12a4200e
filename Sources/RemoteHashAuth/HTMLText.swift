import JSON
import ServerKit

extension HTMLText {
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
