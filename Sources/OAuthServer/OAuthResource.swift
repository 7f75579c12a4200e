import Directory
import OAuthGrants

/// The `resource` (RFC 8707) an authorization names, matched byte for byte (contract 1.1): the JMAP or MCP URL of
/// this server, or one inbox as `urn:atomicmail:agent:{accountId}`.
public enum OAuthResource: Sendable, Equatable {
    /// `<issuer>/jmap` or `<issuer>/mcp`.
    case service(String)
    /// `urn:atomicmail:agent:{accountId}`, the lowercase UUID of one inbox.
    case inbox(accountID: String)

    static let inboxPrefix = OAuthAccessClaims.inboxResourcePrefix

    /// The resource `text` names, or nil when it is none of those exactly.
    public init?(_ text: String, configuration: OAuthConfiguration) {
        if configuration.serviceResources.contains(text) {
            self = .service(text)
        } else if text.hasPrefix(Self.inboxPrefix), AccountID.isUUID(String(text.dropFirst(Self.inboxPrefix.count))) {
            self = .inbox(accountID: String(text.dropFirst(Self.inboxPrefix.count)))
        } else {
            return nil
        }
    }
}
