import Audit
import EmailAddresses

/// The rules an owner's email and password follow.
public enum OwnerCredentials {
    /// Shortest password accepted, in characters (NIST SP 800-63B's minimum for a user-chosen secret).
    public static let minimumPasswordLength = 8
    /// Longest password accepted, in bytes: Argon2 takes any length, this bounds the work a request can ask for.
    public static let maximumPasswordBytes = 1024

    /// `email` as an address is compared (``EmailAddress``: ASCII case folded, the domain's IDNA form) when it looks
    /// like one with a dotted domain, else nil.
    public static func normalizedEmail(_ email: String) -> String? {
        guard email.utf8.count <= 254, !email.contains(" "), !AuditText.containsControl(email),
            let address = EmailAddress(email), address.domain.name.contains(".")
        else { return nil }
        return address.text
    }

    /// Whether `password` may be set.
    public static func acceptable(_ password: String) -> Bool {
        password.count >= minimumPasswordLength && password.utf8.count <= maximumPasswordBytes
    }
}
