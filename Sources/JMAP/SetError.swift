import JSON

/// A per-object error of a `/set` method (RFC 8620 section 5.3).
struct SetError: Error, Sendable {
    let type: String
    let description: String
    var properties: [String]? = nil
    /// `blobNotFound`: the blob ids it could not find.
    var notFound: [JSONValue]? = nil
    /// `invalidRecipients`: the addresses refused.
    var invalidRecipients: [String]? = nil
    /// `tooLarge` of `EmailSubmission/set` (RFC 8621 7.5): the largest email that may be sent, in octets.
    var maxSize: Int? = nil

    static func invalidProperties(_ description: String, _ properties: [String]) -> SetError {
        SetError(type: "invalidProperties", description: description, properties: properties)
    }

    static let notFound = SetError(type: "notFound", description: "No such object in this account.")

    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("type", .string(type)), ("description", .string(description))]
        if let properties { pairs.append(("properties", .array(properties.map(JSONValue.string)))) }
        if let notFound { pairs.append(("notFound", .array(notFound))) }
        if let invalidRecipients { pairs.append(("invalidRecipients", .array(invalidRecipients.map(JSONValue.string)))) }
        if let maxSize { pairs.append(("maxSize", .int(Int64(maxSize)))) }
        return .object(pairs)
    }
}
