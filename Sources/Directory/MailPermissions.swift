/// What a principal may do with the mailbox it opens: read (every JMAP method that does not send, and the MCP tools
/// that read) and send (composing and `EmailSubmission/set`). The OAuth scopes `mail.read` and `mail.send`
/// (`api-docs/oauth-mcp-contract.md` 1.9); an API key or capability token may do both.
public struct MailPermissions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `mail.read`.
    public static let read = MailPermissions(rawValue: 1)
    /// `mail.send`.
    public static let send = MailPermissions(rawValue: 2)
    /// Both: what the API-key and capability paths open.
    public static let all: MailPermissions = [.read, .send]

    /// The OAuth scope name of each permission, in the order scopes are written.
    public static let scopeNames: [(MailPermissions, String)] = [(.read, "mail.read"), (.send, "mail.send")]

    /// The permissions a space-separated OAuth `scope` names; nil when it names anything else or nothing.
    public init?(scope: String) {
        var permissions: MailPermissions = []
        for name in scope.split(separator: " ") {
            guard let known = Self.scopeNames.first(where: { $0.1 == name }) else { return nil }
            permissions.insert(known.0)
        }
        guard !permissions.isEmpty else { return nil }
        self = permissions
    }

    /// The OAuth scope names of these permissions, in the order scopes are written.
    public var names: [String] { Self.scopeNames.filter { contains($0.0) }.map(\.1) }

    /// The space-separated OAuth scope of these permissions (`mail.read mail.send`).
    public var scope: String { names.joined(separator: " ") }
}
