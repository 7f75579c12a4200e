import Directory

/// The scopes of contract 1.9: `mail.read` and `mail.send`, written space-separated in that order.
public enum OAuthScope {
    /// Every scope this server knows, in the order it writes them.
    public static let supported = MailPermissions.all.names

    /// The scopes of a space-separated `text`, deduplicated and in ``supported`` order; nil when any is unknown or
    /// there is none.
    public static func parse(_ text: String) -> [String]? { MailPermissions(scope: text)?.names }

    /// `scopes` written for the wire.
    public static func text(_ scopes: [String]) -> String { supported.filter(scopes.contains).joined(separator: " ") }
}
