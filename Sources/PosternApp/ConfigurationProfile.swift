import Foundation

/// A named set of defaults for one kind of use (`POSTERN_PROFILE` / `serve --profile`). The profile fills in only
/// what no flag, environment variable or named configuration file sets: every explicit setting still wins.
///
/// ## Configuration keys
/// - `POSTERN_PROFILE` (`default` or `test`, default `default`): read by ``ConfigurationLoader`` through ``named(_:)``.
public struct ConfigurationProfile: Sendable, Equatable {
    /// `default` or `test`.
    public let name: String
    /// Settings by environment name, below the explicit ones.
    public let defaults: [String: String]
    /// Whether the data directory, unless set, is a new temporary one removed when `serve` exits.
    public let usesTemporaryDataDirectory: Bool

    /// The shipped defaults of `config/postern.env`.
    public static let standard = ConfigurationProfile(name: "default", defaults: [:], usesTemporaryDataDirectory: false)

    /// For a test suite's server: free ports for HTTP, SMTP, the sandbox, IMAP, IMAPS, POP3, POP3S and submission (with
    /// its implicit-TLS port), no rate limits,
    /// no mailbox proof of work and agent difficulty 0, passwords stored with Argon2id at its cheapest useful cost (64
    /// KiB, one pass: a test's passwords guard nothing, and every sign-up and sign-in of a suite pays it), no
    /// SPF/DKIM/DMARC lookups in the sandbox (no DNS traffic a test did not ask for), SMTP failure injection available
    /// (no rule is set until a test sets one), Mailpit's retention (the newest 500 messages kept, no age limit),
    /// mail.cx's implicit mailboxes on `mailcx.localhost`, warnings only in the log, and a temporary data directory.
    public static let test = ConfigurationProfile(
        name: "test",
        defaults: [
            "POSTERN_PORT": "0", "POSTERN_SMTP_PORT": "0", "POSTERN_SANDBOX_SMTP_PORT": "0",
            "POSTERN_IMAP": "on", "POSTERN_IMAP_PORT": "0", "POSTERN_IMAPS_PORT": "0", "POSTERN_POP3": "on",
            "POSTERN_POP3_PORT": "0", "POSTERN_POP3S_PORT": "0", "POSTERN_SUBMISSION": "on",
            "POSTERN_SUBMISSION_PORT": "0", "POSTERN_SUBMISSIONS_PORT": "0",
            "POSTERN_RATE_LIMITS": "off", "POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_AGENT_POW_DIFFICULTY": "0",
            "POSTERN_AGENT_POW_DYNAMIC": "off", "POSTERN_SANDBOX_MAIL_AUTH": "off", "POSTERN_LOG_LEVEL": "warning",
            "POSTERN_SMTP_CHAOS": "on", "POSTERN_MAIL_MAX_MESSAGES": "500",
            "POSTERN_MAILCX_DOMAINS": "mailcx.localhost",
            "POSTERN_PASSWORD_ARGON2_MEMORY_KIB": String(PasswordHashConfiguration.testProfile.memoryKiB),
            "POSTERN_PASSWORD_ARGON2_ITERATIONS": String(PasswordHashConfiguration.testProfile.iterations),
        ],
        usesTemporaryDataDirectory: true)

    /// Every profile, by name.
    public static let all = [standard, test]

    /// The profile named `name` (nil or empty: `default`).
    /// - Throws: ``ConfigurationError`` naming `POSTERN_PROFILE` for an unknown name.
    public static func named(_ name: String?) throws -> ConfigurationProfile {
        let name = name?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        if name.isEmpty { return standard }
        guard let profile = all.first(where: { $0.name == name }) else {
            throw ConfigurationError(
                key: "POSTERN_PROFILE", message: "must be \(all.map(\.name).joined(separator: " or ")) (got \"\(name)\")")
        }
        return profile
    }
}
