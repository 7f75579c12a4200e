import ServerKit

/// The SMTP sandbox's listener: its port, whether it checks the senders of what it captures, and whether a loopback
/// client may authenticate before STARTTLS. Its address, name and limits are the SMTP listener's.
///
/// ## Configuration keys
/// - `POSTERN_SANDBOX_SMTP_PORT` (0 to 65535, or `off`; default 2587): ``smtpPort``.
/// - `POSTERN_SANDBOX_MAIL_AUTH` (on or off, default on): ``mailAuthentication``.
/// - `POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH` (`loopback` or `never`, default loopback): ``plaintextAuthOnLoopback``.
public struct SandboxConfiguration: Sendable {
    /// The submission listener's port: 0 picks a free one, nil (`off`) turns it off, and so does `POSTERN_SMTP=off`.
    /// Default 2587.
    public var smtpPort: Int? = 2587
    /// Whether SPF, DKIM and DMARC of what is captured are checked; off, nothing is looked up in DNS and every verdict
    /// is `none`. Default true.
    public var mailAuthentication = true
    /// Whether AUTH is taken before STARTTLS from a loopback client. Nobody else may, ever. Default true.
    public var plaintextAuthOnLoopback = true

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        let config = config.scoped(to: "POSTERN_SANDBOX")
        if let port = config.nonEmptyText("SMTP_PORT")?.lowercased() {
            guard port == "off" || Int(port) != nil else {
                throw config.error("SMTP_PORT", "must be off or a port from 0 to 65535 (got \"\(port)\")")
            }
            smtpPort = Int(port)
        }
        if let on = try config.flag("MAIL_AUTH") { mailAuthentication = on }
        if let when = try config.choice("SMTP_PLAINTEXT_AUTH", ["loopback", "never"]) {
            plaintextAuthOnLoopback = when == "loopback"
        }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let smtpPort, !(0...65535).contains(smtpPort) {
            throw ConfigurationError(
                key: "POSTERN_SANDBOX_SMTP_PORT", message: "must be off, or from 0 (a free port) to 65535")
        }
    }
}
