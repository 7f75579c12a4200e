import JSON

/// A per-object error of a `/set` method (RFC 8620 section 5.3).
public struct SetError: Error, Sendable, Equatable {
    /// The error's type (`invalidProperties`, `forbiddenToSend`, …).
    public let type: String
    /// What was wrong, for the client.
    public let description: String
    /// `invalidProperties`: the properties at fault.
    public var properties: [String]? = nil
    /// `blobNotFound`: the blob ids it could not find.
    public var notFound: [JSONValue]? = nil
    /// `invalidRecipients`: the addresses refused.
    public var invalidRecipients: [String]? = nil
    /// `tooLarge` of `EmailSubmission/set` (RFC 8621 7.5): the largest email that may be sent, in octets.
    public var maxSize: Int? = nil

    init(
        type: String, description: String, properties: [String]? = nil, notFound: [JSONValue]? = nil,
        invalidRecipients: [String]? = nil, maxSize: Int? = nil
    ) {
        self.type = type
        self.description = description
        self.properties = properties
        self.notFound = notFound
        self.invalidRecipients = invalidRecipients
        self.maxSize = maxSize
    }

    /// The error of a `/set` answer's `notCreated` (the reverse of ``json``); nil when `json` has no `type`.
    init?(json: JSONValue) {
        guard let type = json["type"]?.stringValue else { return nil }
        self.init(
            type: type, description: json["description"]?.stringValue ?? "",
            properties: json["properties"]?.arrayValue?.compactMap(\.stringValue), notFound: json["notFound"]?.arrayValue,
            invalidRecipients: json["invalidRecipients"]?.arrayValue?.compactMap(\.stringValue),
            maxSize: json["maxSize"]?.intValue.map(Int.init))
    }

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
