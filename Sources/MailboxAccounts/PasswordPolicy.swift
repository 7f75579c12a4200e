/// Length rules for mailbox and Pro passwords, applied before any hashing.
public enum PasswordPolicy {
    /// Fewest characters a new password may have (Mail.td: 6).
    public static let minimumCharacters = 6
    /// Most UTF-8 bytes any password may have; longer ones are refused before Argon2 runs.
    public static let maximumBytes = 4096

    /// Checks a new password: `.passwordTooShort` under 6 characters, `.passwordTooLong` over 4 KiB.
    public static func validateNew(_ password: String) throws(MailboxError) {
        guard password.utf8.count <= maximumBytes else { throw .passwordTooLong }
        guard password.count >= minimumCharacters else { throw .passwordTooShort }
    }

    /// Whether a presented password is even worth hashing (non-empty, at most 4 KiB).
    public static func isPlausible(_ password: String) -> Bool {
        !password.isEmpty && password.utf8.count <= maximumBytes
    }
}
