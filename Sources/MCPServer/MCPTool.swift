import JSON

/// A tool as `tools/list` describes it: its name, what it does, and its parameters, from which both its JSON Schema
/// and the checks of ``MCPToolArguments`` come, so that the schema a host sees is the one the server enforces.
struct MCPTool: Sendable {
    let name: String
    let description: String
    let parameters: [MCPParameter]
    /// Whether the tool only reads (the `readOnlyHint` annotation).
    let readOnly: Bool

    /// The `tools/list` entry.
    var json: JSONValue {
        let properties = parameters.map { ($0.name, $0.schema) }
        let required = parameters.filter(\.required).map { JSONValue.string($0.name) }
        var schema: [(String, JSONValue)] = [("type", "object"), ("properties", .object(properties))]
        if !required.isEmpty { schema.append(("required", .array(required))) }
        schema.append(("additionalProperties", false))
        return .object([
            ("name", .string(name)), ("description", .string(description)), ("inputSchema", .object(schema)),
            ("annotations", .object([("readOnlyHint", .bool(readOnly))])),
        ])
    }
}

/// One named argument of a tool.
struct MCPParameter: Sendable {
    /// What an argument may hold.
    enum Kind: Sendable {
        case string
        case integer(ClosedRange<Int64>)
        case boolean
        /// One address or an array of them.
        case addresses
        /// An array of `{filename, content_type?, content_base64}`.
        case attachments
        /// Any JSON object.
        case object
        /// An array of JSON values.
        case array
        /// One of the given strings.
        case choice([String])
    }

    let name: String
    let kind: Kind
    let required: Bool
    let description: String

    init(_ name: String, _ kind: Kind, required: Bool = false, _ description: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.description = description
    }

    var schema: JSONValue {
        let about: (String, JSONValue) = ("description", .string(description))
        switch kind {
        case .string: return .object([("type", "string"), about])
        case .integer(let range):
            return .object([
                ("type", "integer"), ("minimum", .int(range.lowerBound)), ("maximum", .int(range.upperBound)), about,
            ])
        case .boolean: return .object([("type", "boolean"), about])
        case .addresses:
            return .object([
                ("anyOf", [["type": "string"], ["type": "array", "items": ["type": "string"], "minItems": 1]]), about,
            ])
        case .attachments:
            let item: JSONValue = [
                "type": "object",
                "properties": [
                    "filename": ["type": "string"], "content_type": ["type": "string"],
                    "content_base64": ["type": "string"],
                ],
                "required": ["filename", "content_base64"], "additionalProperties": false,
            ]
            return .object([("type", "array"), ("items", item), about])
        case .object: return .object([("type", "object"), about])
        case .array: return .object([("type", "array"), about])
        case .choice(let values): return .object([("type", "string"), ("enum", .array(values.map(JSONValue.string))), about])
        }
    }
}
