/// How a client session introduces itself, what it insists on, and how long it waits for each reply.
public struct SMTPClientConfiguration: Sendable {
    /// The name sent in `EHLO`/`HELO`: this host's public name. Default `localhost`.
    public var heloName: String = "localhost"
    /// Whether the session uses STARTTLS. Default ``SMTPTLSPolicy/opportunistic``.
    public var tls: SMTPTLSPolicy = .opportunistic
    /// Credentials for `AUTH PLAIN` or `LOGIN` (relay to a smarthost), sent only once TLS is on; nil (the default)
    /// authenticates nowhere.
    public var credentials: SMTPCredentials?
    /// How long each reply may take to arrive.
    public var timeouts = SMTPClientTimeouts()
    /// Limits of the reply parser.
    public var replyLimits = SMTPReplyLimits()

    /// The defaults listed on each property.
    public init() {}

    /// A configuration with the `EHLO` name and TLS policy given.
    public init(heloName: String, tls: SMTPTLSPolicy = .opportunistic, credentials: SMTPCredentials? = nil) {
        self.heloName = heloName
        self.tls = tls
        self.credentials = credentials
    }
}

/// Whether a session encrypts with STARTTLS (RFC 3207).
public enum SMTPTLSPolicy: String, Sendable, Equatable {
    /// Never (tests against a server without a certificate).
    case disabled
    /// When the server offers it; in the clear when it does not or answers `STARTTLS` with an error. The driver
    /// decides whether the certificate must verify (for MX delivery without MTA-STS it need not: RFC 7435).
    case opportunistic
    /// Always: a server that does not offer STARTTLS, or refuses it, gets no mail (the session defers).
    case required
}

/// A user name and password for `AUTH` (RFC 4954). Never logged: ``description`` hides the password.
public struct SMTPCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The user name (authentication identity).
    public let username: String
    /// The password.
    public let password: String

    /// Credentials.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The user name only.
    public var description: String { "SMTPCredentials(\(username), password hidden)" }
}

/// How long a client waits for each of the server's replies, RFC 5321 §4.5.3.2's minimums as defaults. The machine
/// hands the one that applies to the driver with every wait (``SMTPClientAction/awaitReply(timeout:)``), and the
/// driver gives up on the server when it passes.
public struct SMTPClientTimeouts: Sendable, Equatable {
    /// The `220` greeting. Default 5 minutes (§4.5.3.2.1).
    public var greeting: Duration = .seconds(300)
    /// `EHLO`, `HELO`, `STARTTLS`, `AUTH`, `RSET` and `QUIT`, which RFC 5321 does not name. Default 5 minutes.
    public var command: Duration = .seconds(300)
    /// The reply to `MAIL FROM`. Default 5 minutes (§4.5.3.2.2).
    public var mail: Duration = .seconds(300)
    /// The reply to each `RCPT TO`. Default 5 minutes (§4.5.3.2.3).
    public var recipient: Duration = .seconds(300)
    /// The `354` to `DATA`. Default 2 minutes (§4.5.3.2.4).
    public var dataInitiation: Duration = .seconds(120)
    /// Each write of message text making progress. Default 3 minutes (§4.5.3.2.5).
    public var dataBlock: Duration = .seconds(180)
    /// The reply to the final `.`. Default 10 minutes (§4.5.3.2.6).
    public var dataTermination: Duration = .seconds(600)

    /// The RFC's values.
    public init() {}

    /// Every timeout set to `duration` (tests).
    public init(all duration: Duration) {
        greeting = duration
        command = duration
        mail = duration
        recipient = duration
        dataInitiation = duration
        dataBlock = duration
        dataTermination = duration
    }
}
