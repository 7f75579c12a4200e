/// The `resource` (RFC 8707) an authorization names, matched byte for byte (contract 1.1): the JMAP or MCP URL of
/// this server, or one inbox as `urn:atomicmail:agent:{accountId}`.
public enum OAuthResource: Sendable, Equatable {
    /// `<issuer>/jmap` or `<issuer>/mcp`.
    case service(String)
    /// `urn:atomicmail:agent:{accountId}`, the lowercase UUID of one inbox.
    case inbox(accountID: String)

    static let inboxPrefix = "urn:atomicmail:agent:"

    /// The resource `text` names, or nil when it is none of those exactly.
    public init?(_ text: String, configuration: OAuthConfiguration) {
        if configuration.serviceResources.contains(text) {
            self = .service(text)
        } else if text.hasPrefix(Self.inboxPrefix), Self.isLowercaseUUID(text.dropFirst(Self.inboxPrefix.count)) {
            self = .inbox(accountID: String(text.dropFirst(Self.inboxPrefix.count)))
        } else {
            return nil
        }
    }

    static func isLowercaseUUID(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
            }
        }
        return true
    }
}
