import Audit

/// The rules an owner's email and password follow.
public enum OwnerCredentials {
    /// Shortest password accepted, in characters (NIST SP 800-63B's minimum for a user-chosen secret).
    public static let minimumPasswordLength = 8
    /// Longest password accepted, in bytes: Argon2 takes any length, this bounds the work a request can ask for.
    public static let maximumPasswordBytes = 1024

    /// `email` lower-cased when it looks like an address, else nil.
    public static func normalizedEmail(_ email: String) -> String? {
        let text = email.lowercased()
        guard text.utf8.count <= 254, !text.contains(" "), !AuditText.containsControl(text) else {
            return nil
        }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix(".")
        else { return nil }
        return text
    }

    /// Whether `password` may be set.
    public static func acceptable(_ password: String) -> Bool {
        password.count >= minimumPasswordLength && password.utf8.count <= maximumPasswordBytes
    }
}
