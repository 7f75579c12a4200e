import JSON
import MailSubmission

/// A per-object error of a `/set` method (RFC 8620 section 5.3).
public struct SetError: Error, Sendable, Equatable {
    /// What kind of refusal it is; its raw value is the wire `type` (`invalidProperties`, `forbiddenToSend`, …).
    public let kind: Kind
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
    /// The submission owner's typed refusal behind an `EmailSubmission/set` refusal, when an in-process sender
    /// (``JMAPService/send(_:as:client:requestID:)``) got it: what the web inbox and MCP word at their edge. Never on
    /// the wire (``json`` leaves it out).
    public internal(set) var refusal: SubmissionRefusal? = nil

    init(
        _ kind: Kind, description: String, properties: [String]? = nil, notFound: [JSONValue]? = nil,
        invalidRecipients: [String]? = nil, maxSize: Int? = nil
    ) {
        self.kind = kind
        self.description = description
        self.properties = properties
        self.notFound = notFound
        self.invalidRecipients = invalidRecipients
        self.maxSize = maxSize
    }

    /// The error of a `/set` answer's `notCreated` (the reverse of ``json``); nil when `json`'s `type` is not a
    /// ``Kind`` (this server writes no other).
    init?(json: JSONValue) {
        guard let kind = json["type"]?.stringValue.flatMap(Kind.init(rawValue:)) else { return nil }
        self.init(
            kind, description: json["description"]?.stringValue ?? "",
            properties: json["properties"]?.arrayValue?.compactMap(\.stringValue), notFound: json["notFound"]?.arrayValue,
            invalidRecipients: json["invalidRecipients"]?.arrayValue?.compactMap(\.stringValue),
            maxSize: json["maxSize"]?.intValue.map(Int.init))
    }

    static func invalidProperties(_ description: String, _ properties: [String]) -> SetError {
        SetError(.invalidProperties, description: description, properties: properties)
    }

    static let notFound = SetError(.notFound, description: "No such object in this account.")

    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("type", .string(kind.rawValue)), ("description", .string(description))]
        if let properties { pairs.append(("properties", .array(properties.map(JSONValue.string)))) }
        if let notFound { pairs.append(("notFound", .array(notFound))) }
        if let invalidRecipients { pairs.append(("invalidRecipients", .array(invalidRecipients.map(JSONValue.string)))) }
        if let maxSize { pairs.append(("maxSize", .int(Int64(maxSize)))) }
        return .object(pairs)
    }
}
