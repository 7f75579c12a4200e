import Directory
import JSON

/// A tool, whole: its name, what it does and its parameters (from which both its JSON Schema and the checks of
/// ``MCPToolArguments`` come, so that the schema a host sees is the one the server enforces), what a call needs of
/// the grant, and what a call does. ``MCPTools`` builds the list once; its name is written only here.
struct MCPTool: Sendable {
    /// What a call does.
    enum Body: Sendable {
        /// Acts for the connection, on no inbox (help, list_agents): nothing of the grant is needed.
        case connection(@Sendable (MCPTools, MCPToolArguments, MCPTools.Request) async throws -> JSONValue)
        /// Acts on one inbox of the connection: `needs` is what the call needs of the grant, besides what JMAP checks
        /// of each method it runs; `run` runs it once that is there.
        case inbox(
            needs: @Sendable (MCPToolArguments) -> MailPermissions,
            run: @Sendable (MCPTools, MCPToolArguments, MCPTools.Call) async throws -> JSONValue)
    }

    let name: String
    let description: String
    let parameters: [MCPParameter]
    /// Whether the tool only reads (the `readOnlyHint` annotation).
    let readOnly: Bool
    let body: Body

    /// A tool that acts on an inbox and needs what `needs` says (`mail.read` unless told).
    init(
        name: String, description: String, parameters: [MCPParameter], readOnly: Bool,
        needs: @escaping @Sendable (MCPToolArguments) -> MailPermissions = { _ in .read },
        run: @escaping @Sendable (MCPTools, MCPToolArguments, MCPTools.Call) async throws -> JSONValue
    ) {
        self.init(
            name: name, description: description, parameters: parameters, readOnly: readOnly,
            body: .inbox(needs: needs, run: run))
    }

    /// A tool with the body given.
    init(name: String, description: String, parameters: [MCPParameter], readOnly: Bool, body: Body) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.readOnly = readOnly
        self.body = body
    }

    /// What a call with `arguments` needs of the grant: nothing for a tool that acts on no inbox.
    func needs(_ arguments: MCPToolArguments) -> MailPermissions {
        guard case .inbox(let needs, _) = body else { return [] }
        return needs(arguments)
    }

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
