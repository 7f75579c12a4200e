import HTTP1
import JSON

/// A request body as Mailpit's handlers read it: a JSON object whose member names match ignoring case (Go's
/// `encoding/json`), or, for the 2023 `mailpit-api-client` that sends its fields as a form, an
/// `application/x-www-form-urlencoded` body read as the same object. A body that is neither is refused: it is never
/// read as an empty request (which, for a delete, means every message).
struct MailpitBody: Sendable {
    /// The body was empty: no member at all.
    let isEmpty: Bool
    private let members: [(String, JSONValue)]
    private let form: [(name: String, value: String)]?

    /// Reads `request`'s body.
    /// - Throws: ``MailpitRefusal`` (400) for a body that is neither an empty body, a JSON object nor a form.
    init(_ request: HTTPRequest) throws {
        let body = request.body
        isEmpty = body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        if isEmpty {
            (members, form) = ([], nil)
        } else if request.contentTypeIsForm {
            (members, form) = ([], HTTPRequest.items(ofQuery: String(decoding: body, as: UTF8.self)))
        } else {
            guard case .object(let object)? = try? JSONValue.parse(body, limits: .requestBody(maximumBytes: body.count))
            else { throw MailpitRefusal.badRequest("invalid JSON body") }
            (members, form) = (object, nil)
        }
    }

    /// The member `name` (its case ignored), nil when absent or null.
    private func member(_ name: String) -> JSONValue? {
        let wanted = name.lowercased()
        guard let value = members.first(where: { $0.0.lowercased() == wanted })?.1, value != .null else { return nil }
        return value
    }

    /// The form values of `name` (its case ignored); nil when the body is no form or has none.
    private func formValues(_ name: String) -> [String]? {
        let wanted = name.lowercased()
        let values = form?.filter { $0.name.lowercased() == wanted }.map(\.value) ?? []
        return values.isEmpty ? nil : values
    }

    /// The array of strings `name`; empty when absent.
    /// - Throws: ``MailpitRefusal`` (400) when it is another type.
    func strings(_ name: String) throws -> [String] {
        if let values = formValues(name) { return values }
        guard let value = member(name) else { return [] }
        guard case .array(let elements) = value else { throw MailpitRefusal.badRequest("\(name) must be an array") }
        return try elements.map { element in
            guard case .string(let text) = element else {
                throw MailpitRefusal.badRequest("\(name) must be an array of strings")
            }
            return text
        }
    }

    /// The string `name`; nil when absent.
    /// - Throws: ``MailpitRefusal`` (400) when it is another type.
    func string(_ name: String) throws -> String? {
        if let values = formValues(name) { return values[0] }
        guard let value = member(name) else { return nil }
        guard case .string(let text) = value else { throw MailpitRefusal.badRequest("\(name) must be a string") }
        return text
    }

    /// The boolean `name` (a form's `true`/`True`/`1` or `false`/`False`/`0`); nil when absent.
    /// - Throws: ``MailpitRefusal`` (400) when it is another type.
    func bool(_ name: String) throws -> Bool? {
        if let values = formValues(name) {
            switch values[0].lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: throw MailpitRefusal.badRequest("\(name) must be true or false")
            }
        }
        guard let value = member(name) else { return nil }
        guard case .bool(let flag) = value else { throw MailpitRefusal.badRequest("\(name) must be true or false") }
        return flag
    }

    /// The object `name`'s members; nil when absent.
    /// - Throws: ``MailpitRefusal`` (400) when it is another type.
    func object(_ name: String) throws -> [(String, JSONValue)]? {
        guard let value = member(name) else { return nil }
        guard case .object(let object) = value else { throw MailpitRefusal.badRequest("\(name) must be an object") }
        return object
    }

    /// The array `name`'s elements; nil when absent.
    /// - Throws: ``MailpitRefusal`` (400) when it is another type.
    func array(_ name: String) throws -> [JSONValue]? {
        guard let value = member(name) else { return nil }
        guard case .array(let elements) = value else { throw MailpitRefusal.badRequest("\(name) must be an array") }
        return elements
    }
}
