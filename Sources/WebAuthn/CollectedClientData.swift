import JSON

/// The members of `clientDataJSON` (WebAuthn Level 3 section 5.8.1) the relying party checks.
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get` (any other string is kept, and refused by the ceremony).
    public let type: String
    /// The challenge, as the client wrote it (base64url).
    public let challenge: String
    /// The origin of the page that ran the ceremony.
    public let origin: String
    /// Whether the ceremony ran in a cross-origin frame; absent counts as false.
    public let crossOrigin: Bool

    /// The largest `clientDataJSON` read, in bytes.
    public static let maximumBytes = 16 * 1024

    /// Parses `clientDataJSON`.
    /// - Throws: ``WebAuthnError/malformedClientData`` for anything but a JSON object with string `type`,
    ///   `challenge` and `origin` and, if present, a boolean `crossOrigin`.
    public init(json bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= Self.maximumBytes,
            let value = try? JSONValue.parse(bytes, limits: JSONValue.Limits(maximumBytes: Self.maximumBytes)),
            value.objectValue != nil, let type = value["type"]?.stringValue,
            let challenge = value["challenge"]?.stringValue, let origin = value["origin"]?.stringValue
        else { throw .malformedClientData }
        var crossOrigin = false
        if let member = value["crossOrigin"] {
            guard let flag = member.boolValue else { throw .malformedClientData }
            crossOrigin = flag
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
    }
}
