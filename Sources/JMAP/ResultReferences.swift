import Foundation
import JSON

/// Result references (RFC 8620 section 3.7): `"#name": {"resultOf", "name", "path"}` becomes `"name"` with the
/// value the JSON pointer selects from an earlier response. Resolved at the top level of the arguments, as the
/// RFC has it, and also inside nested objects (create objects, patches), which the RFC leaves out.
enum ResultReferences {
    static func resolve(_ pairs: [(String, JSONValue)], responses: [(name: String, arguments: JSONValue, callID: String)])
        throws(MethodError) -> [(String, JSONValue)]
    {
        var out: [(String, JSONValue)] = []
        for (key, value) in pairs {
            if key.hasPrefix("#"), let reference = reference(value) {
                let plain = String(key.dropFirst())
                if pairs.contains(where: { $0.0 == plain }) {
                    throw .invalidArguments("Both `\(plain)` and `\(key)` are given.")
                }
                guard let source = responses.last(where: { $0.callID == reference.resultOf }) else {
                    throw MethodError("invalidResultReference", "No earlier method call has the id \(reference.resultOf).")
                }
                guard source.name == reference.name else {
                    throw MethodError(
                        "invalidResultReference",
                        "Call \(reference.resultOf) answered \(source.name), not \(reference.name).")
                }
                guard let selected = evaluate(pointer: reference.path, in: source.arguments) else {
                    throw MethodError("invalidResultReference", "The path \(reference.path) selects nothing.")
                }
                out.append((plain, selected))
            } else {
                out.append((key, try nested(value, responses)))
            }
        }
        return out
    }

    private static func nested(_ value: JSONValue, _ responses: [(name: String, arguments: JSONValue, callID: String)])
        throws(MethodError) -> JSONValue
    {
        switch value {
        case .object(let pairs): return .object(try resolve(pairs, responses: responses))
        case .array(let items):
            var out: [JSONValue] = []
            for item in items { out.append(try nested(item, responses)) }
            return .array(out)
        default: return value
        }
    }

    private static func reference(_ value: JSONValue) -> (resultOf: String, name: String, path: String)? {
        guard let pairs = value.objectValue, pairs.count == 3, let resultOf = value["resultOf"]?.stringValue,
            let name = value["name"]?.stringValue, let path = value["path"]?.stringValue
        else { return nil }
        return (resultOf, name, path)
    }

    /// RFC 6901 JSON pointer with JMAP's `*`: over an array, the rest of the path applies to each item and the
    /// results are flattened one level when they are arrays.
    static func evaluate(pointer: String, in value: JSONValue) -> JSONValue? {
        guard pointer.isEmpty || pointer.hasPrefix("/") else { return nil }
        let tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        return evaluate(tokens[...], value)
    }

    private static func evaluate(_ tokens: ArraySlice<String>, _ value: JSONValue) -> JSONValue? {
        guard let token = tokens.first else { return value }
        let rest = tokens.dropFirst()
        switch value {
        case .object:
            return value[token].flatMap { evaluate(rest, $0) }
        case .array(let items):
            if token == "*" {
                var out: [JSONValue] = []
                for item in items {
                    guard let result = evaluate(rest, item) else { return nil }
                    if case .array(let inner) = result { out += inner } else { out.append(result) }
                }
                return .array(out)
            }
            guard let index = Int(token), index >= 0, index < items.count else { return nil }
            return evaluate(rest, items[index])
        default:
            return nil
        }
    }
}
