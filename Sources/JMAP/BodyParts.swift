import JSON
import MIME

/// The properties of an Email read from its body structure (RFC 8621 section 4.1.4): `bodyStructure`, `textBody`,
/// `htmlBody`, `attachments`, `bodyValues` and `headers`, each body part with the `bodyProperties` asked for. A leaf's
/// blob is `P<message id>_<part id>` (its bytes after transfer decoding, ``MailStore/blob(address:id:)``).
struct BodyParts {
    /// The properties by name.
    let properties: [String: JSONValue]

    init(
        messageID: String, structure: EmailBodyStructure, properties wanted: [String], fetchText: Bool,
        fetchHTML: Bool, fetchAll: Bool, maxBytes: Int
    ) {
        func part(_ item: EmailBodyPart, inStructure: Bool) -> JSONValue {
            var keys = wanted
            // A multipart of bodyStructure always shows its parts, which are the structure.
            if inStructure, item.isMultipart, !keys.contains("subParts") { keys.append("subParts") }
            return .object(keys.map { key in
                (key, Self.value(key, of: item, messageID: messageID) { part($0, inStructure: inStructure) })
            })
        }
        var values: [(String, JSONValue)] = []
        func add(_ parts: [EmailBodyPart]) {
            for leaf in parts where leaf.type.hasPrefix("text/") {
                guard let id = leaf.partID, !values.contains(where: { $0.0 == id }) else { continue }
                let text = leaf.text(maxBytes: maxBytes)
                values.append((id, .object([
                    ("value", .string(text.value)), ("isEncodingProblem", .bool(text.isEncodingProblem)),
                    ("isTruncated", .bool(text.isTruncated)),
                ])))
            }
        }
        if fetchAll {
            add(structure.leaves)
        } else {
            if fetchText { add(structure.textBody) }
            if fetchHTML { add(structure.htmlBody) }
        }
        properties = [
            "bodyStructure": part(structure.root, inStructure: true),
            "textBody": .array(structure.textBody.map { part($0, inStructure: false) }),
            "htmlBody": .array(structure.htmlBody.map { part($0, inStructure: false) }),
            "attachments": .array(structure.attachments.map { part($0, inStructure: false) }),
            "bodyValues": .object(values),
            "headers": Self.headers(structure.root.headers),
        ]
    }

    /// Header fields as RFC 8621's EmailHeader list: name and raw value.
    static func headers(_ fields: [MailHeader]) -> JSONValue {
        .array(fields.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    /// Body part property `key` of `part`; `child` writes a sub-part.
    private static func value(
        _ key: String, of part: EmailBodyPart, messageID: String, child: (EmailBodyPart) -> JSONValue
    ) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        switch key {
        case "partId": return text(part.partID)
        case "blobId": return text(part.partID.map { "P\(messageID)_\($0)" })
        case "size": return .int(Int64(part.size))
        case "headers": return headers(part.headers)
        case "name": return text(part.name)
        case "type": return .string(part.type)
        case "charset": return text(part.charset)
        case "disposition": return text(part.disposition)
        case "cid": return text(part.cid)
        case "language": return part.language.map { .array($0.map(JSONValue.string)) } ?? .null
        case "location": return text(part.location)
        case "subParts": return .array(part.subParts.map(child))
        default:
            guard let property = HeaderProperty(key) else { return .null }
            return JMAPService.json(property, in: part.headers)
        }
    }
}
