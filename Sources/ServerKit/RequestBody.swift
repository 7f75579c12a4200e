import JSON

/// A request's JSON body, read the same way by every surface: the one strict parser (``JSONValue/parse(_:limits:)``
/// under ``JSONValue/Limits/requestBody(maximumBytes:)``: duplicate keys and nesting past 32 refused) into a small
/// value, then typed accessors. JMAP and MCP read their bodies as `JSONValue` under the same limits.
public struct RequestBody: Sendable {
    /// A JSON value as a body carries it.
    public enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        /// A number without fraction or exponent that fits 64 bits.
        case integer(Int64)
        case number(Double)
        case string(String)
        case array([Value])
        case object([String: Value])

        /// The value `json` holds. A number written with a fraction or exponent that is a whole number within 64
        /// bits (`1.0`, `1e2`) reads as an integer, as the Foundation decoder the surfaces used before read it.
        init(_ json: JSONValue) {
            switch json {
            case .null: self = .null
            case .bool(let value): self = .bool(value)
            case .int(let value): self = .integer(value)
            case .double(let value): self = Int64(exactly: value).map(Value.integer) ?? .number(value)
            case .string(let value): self = .string(value)
            case .array(let elements): self = .array(elements.map(Value.init))
            case .object(let members):
                // The parser refused duplicate keys, so no member is lost here.
                self = .object(Dictionary(uniqueKeysWithValues: members.map { ($0.0, Value($0.1)) }))
            }
        }

        /// The members when this is an object.
        public var members: [String: Value]? {
            if case .object(let members) = self { return members }
            return nil
        }
    }

    /// A member had a type its reader does not take.
    public struct TypeMismatch: Error, Sendable {
        /// The member's name.
        public let name: String
    }

    /// The members of the body's top-level object.
    public let members: [String: Value]

    /// Parses `body` as a JSON object; nil when it is not valid JSON (a duplicate key or nesting past the request
    /// limit included) or not an object.
    public init?(json body: [UInt8]) {
        guard case .object(let members)? = try? JSONValue.parse(body, limits: .requestBody(maximumBytes: body.count))
        else { return nil }
        self.members = Dictionary(uniqueKeysWithValues: members.map { ($0.0, Value($0.1)) })
    }

    /// The member `name`, nil when absent.
    public subscript(_ name: String) -> Value? { members[name] }

    /// The string member `name`: nil when absent or null.
    /// - Throws: `TypeMismatch` when it is another type.
    public func string(_ name: String) throws(TypeMismatch) -> String? {
        switch members[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw TypeMismatch(name: name)
        }
    }
}
