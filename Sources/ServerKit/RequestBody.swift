import Foundation

/// A request's JSON body, read the same way by every surface: Foundation's `JSONDecoder` into a small
/// value, then typed accessors. The JWT module's strict `JSONValue` stays for JOSE only, where member
/// order, duplicate keys and nesting depth matter; a request body is bounded by the route's body limit.
public struct RequestBody: Sendable {
    /// A JSON value as a body carries it.
    public enum Value: Sendable, Equatable, Decodable {
        case null
        case bool(Bool)
        /// A number without fraction or exponent that fits 64 bits.
        case integer(Int64)
        case number(Double)
        case string(String)
        case array([Value])
        case object([String: Value])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Value].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Value].self))
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

    /// Parses `body` as a JSON object; nil when it is not valid JSON or not an object.
    public init?(json body: [UInt8]) {
        guard let value = try? JSONDecoder().decode(Value.self, from: Data(body)), let members = value.members else {
            return nil
        }
        self.members = members
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
