import Base64Coding
import Foundation
import JMAP
import JSON

/// A tool call's arguments checked against the tool's parameters and the configured limits: unknown names, wrong
/// types and oversized values are refused before anything is read or sent.
struct MCPToolArguments: Sendable {
    let values: [String: JSONValue]

    /// - Throws: ``JSONRPCError`` `invalidParams` naming the first argument that is unknown, missing, of the wrong
    ///   type or over a limit.
    init(_ given: JSONValue?, for tool: MCPTool, limits: MCPConfiguration) throws(JSONRPCError) {
        try self.init(given, for: tool.name, tool.parameters, limits: limits)
    }

    /// The arguments `given` to what `name` calls (a tool, or one of run_preset's presets), checked against
    /// `parameters`.
    /// - Throws: as ``init(_:for:limits:)``.
    init(_ given: JSONValue?, for name: String, _ parameters: [MCPParameter], limits: MCPConfiguration)
        throws(JSONRPCError)
    {
        let tool = (name: name, parameters: parameters)
        var values: [String: JSONValue] = [:]
        guard let pairs = (given ?? .object([])).objectValue else {
            throw Self.invalid("`arguments` of \(tool.name) must be an object.")
        }
        for (name, value) in pairs {
            guard let parameter = tool.parameters.first(where: { $0.name == name }) else {
                let known = tool.parameters.map(\.name).joined(separator: ", ")
                throw Self.invalid(
                    "\(tool.name) has no argument `\(name)`" + (known.isEmpty ? "; it takes none." : "; it takes \(known)."))
            }
            if value == .null, !parameter.required { continue }
            try Self.check(value, parameter, tool: tool.name, limits: limits)
            values[name] = value
        }
        for parameter in tool.parameters where parameter.required && values[parameter.name] == nil {
            throw Self.invalid("\(tool.name) needs `\(parameter.name)`: \(parameter.description)")
        }
        self.values = values
    }

    private static func check(_ value: JSONValue, _ parameter: MCPParameter, tool: String, limits: MCPConfiguration)
        throws(JSONRPCError)
    {
        let name = "`\(parameter.name)` of \(tool)"
        func string(_ value: JSONValue, _ what: String) throws(JSONRPCError) -> String {
            guard let text = value.stringValue else { throw invalid("\(what) must be a string.") }
            guard text.utf8.count <= limits.maxStringBytes else {
                throw invalid("\(what) is over \(limits.maxStringBytes) bytes.")
            }
            return text
        }
        switch parameter.kind {
        case .string: _ = try string(value, name)
        case .integer(let range):
            guard case .int(let number) = value else { throw invalid("\(name) must be an integer.") }
            guard range.contains(number) else {
                throw invalid("\(name) must be from \(range.lowerBound) to \(range.upperBound).")
            }
        case .boolean:
            guard value.boolValue != nil else { throw invalid("\(name) must be true or false.") }
        case .addresses:
            let list = value.arrayValue ?? [value]
            guard !list.isEmpty, list.count <= limits.maxListCount else {
                throw invalid("\(name) must name 1 to \(limits.maxListCount) addresses.")
            }
            for item in list {
                guard let text = item.stringValue, text.contains("@"), text.utf8.count <= 320 else {
                    throw invalid("\(name) must be an address or an array of addresses (name@domain).")
                }
            }
        case .attachments:
            guard let list = value.arrayValue, list.count <= limits.maxListCount else {
                throw invalid("\(name) must be an array of at most \(limits.maxListCount) attachments.")
            }
            var total = 0
            for item in list {
                guard let pairs = item.objectValue,
                    pairs.allSatisfy({ ["filename", "content_type", "content_base64"].contains($0.0) }),
                    item["filename"]?.stringValue.map({ !$0.isEmpty && $0.utf8.count <= 255 }) == true,
                    item["content_type"].map({ $0.stringValue?.split(separator: "/").count == 2 }) ?? true,
                    let base64 = item["content_base64"]?.stringValue
                else {
                    throw invalid(
                        "Each attachment of \(tool) is {filename, content_type (type/subtype, optional), "
                            + "content_base64}.")
                }
                guard base64.utf8.count <= limits.maxAttachmentBytes / 3 * 4 + 4 else {
                    throw invalid("The attachments of \(tool) are over \(limits.maxAttachmentBytes) bytes.")
                }
                guard let bytes = Base64.decode(base64) else {
                    throw invalid("`content_base64` of \(item["filename"]?.stringValue ?? "") is not base64.")
                }
                total += bytes.count
                guard total <= limits.maxAttachmentBytes else {
                    throw invalid("The attachments of \(tool) are over \(limits.maxAttachmentBytes) bytes.")
                }
            }
        case .object:
            guard value.objectValue != nil else { throw invalid("\(name) must be an object.") }
            guard value.serializedCount(notExceeding: limits.maxRequestBytes) != nil else {
                throw invalid("\(name) is too large.")
            }
        case .array:
            guard value.arrayValue != nil else { throw invalid("\(name) must be an array.") }
        case .choice(let choices):
            guard let text = value.stringValue, choices.contains(text) else {
                throw invalid("\(name) must be one of \(choices.joined(separator: ", ")).")
            }
        }
    }

    static func invalid(_ message: String) -> JSONRPCError { JSONRPCError(.invalidParams, message) }

    func string(_ name: String) -> String? { values[name]?.stringValue }
    func int(_ name: String) -> Int64? { values[name]?.intValue }
    func bool(_ name: String) -> Bool? { values[name]?.boolValue }

    /// The addresses of `name` (a string or an array), empty when absent.
    func addresses(_ name: String) -> [String] {
        guard let value = values[name] else { return [] }
        return (value.arrayValue ?? [value]).compactMap(\.stringValue)
    }

    /// The attachments of `name`, empty when absent.
    func attachments(_ name: String = "attachments") -> [SubmissionDraft.Attachment] {
        (values[name]?.arrayValue ?? []).compactMap { item in
            guard let filename = item["filename"]?.stringValue, let base64 = item["content_base64"]?.stringValue
            else { return nil }
            let type = item["content_type"]?.stringValue ?? "application/octet-stream"
            return SubmissionDraft.Attachment(filename: filename, contentType: type, base64: base64)
        }
    }
}
