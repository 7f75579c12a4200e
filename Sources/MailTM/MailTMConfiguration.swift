import ConfigurationReading
import EmailAddresses
import ServerKit

/// Everything mail.tm's API (`MailTM`, issue 72) can be configured with.
///
/// The surface is a second door onto Mail.td's accounts: it serves some of the Mail.td surface's domains, and its
/// accounts, passwords and tokens are that surface's. The composition root sets what surfaces share (rate limits,
/// instances) and fills ``domains`` from `POSTERN_MAILBOX_DOMAINS` when the key is not set.
///
/// ## Configuration keys
/// - `POSTERN_MAILTM_PATH` (a path, default `/mailtm`; `off` serves no mail.tm API): ``basePath``.
/// - `POSTERN_MAILTM_DOMAINS` (comma-separated, default: the Mail.td surface's public domains): ``domains``; each must
///   be one of the Mail.td surface's public or Pro domains (`PosternConfiguration` checks it), so that mail to it is
///   delivered.
public struct MailTMConfiguration: Sendable {
    /// Where the API is mounted (mail.tm's `https://api.mail.tm` root): `/domains` is `<basePath>/domains`. Nil: the
    /// surface is off. Default `/mailtm`.
    public var basePath: String? = "/mailtm"
    /// The domains accounts may be made on and `GET /domains` lists, lower-cased, in order. Nil until the composition
    /// root fills the default in (the Mail.td surface's public domains).
    public var domains: [String]?
    /// Requests per client and second: mail.tm's documented 8. Applied only when ``rateLimitsEnabled``.
    public var rate = TokenBucketRate(requests: 8, perSeconds: 1)
    /// `false` disables the rate limit (`POSTERN_RATE_LIMITS=off`, the test profile). Default `true`.
    public var rateLimitsEnabled = true
    /// How many instances enforce the limit together (`POSTERN_INSTANCES`); this one takes its share. Default 1.
    public var instances = 1
    /// Slots of the rate-limit table; memory stays bounded by it. Default 65,536.
    public var rateLimitTableCapacity = 65_536
    /// Messages and domains a collection page holds: mail.tm's 30.
    public var itemsPerPage = 30
    /// The highest `page` a collection takes; past it, 400 (the Mail.td surface's bound). Default 1,000,000.
    public var maximumPage = 1_000_000
    /// Largest request body taken (an address and a password, or a merge patch). Default 16 KiB.
    public var bodyLimit = 16 * 1024
    /// How long a Mercure stream stays silent before a comment line keeps it open (and its token is checked again).
    /// Default 30 s.
    public var mercureKeepAlive: Duration = .seconds(30)
    /// Mercure streams one client may hold open at once. Default 8.
    public var mercureStreamsPerClient = 8
    /// Mercure streams open at once on this instance. Default 10,000.
    public var mercureStreams = 10_000

    /// A configuration with every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that is not a path.
    public init(config: ConfigurationReader) throws {
        if let path = config.text("POSTERN_MAILTM_PATH") { basePath = path == "off" ? nil : path }
        if let list = config.list("POSTERN_MAILTM_DOMAINS") { domains = list.map { EmailDomain.key($0) } }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let basePath {
            guard MountPath.isValid(basePath) else {
                throw ConfigurationError(
                    key: "POSTERN_MAILTM_PATH",
                    message: "must be off or a path such as /mailtm: a leading /, no trailing /, no ? or #")
            }
        }
        if let domains, domains.isEmpty {
            throw ConfigurationError(key: "POSTERN_MAILTM_DOMAINS", message: "must list at least one domain")
        }
    }

    /// Refuses ``domains`` that the Mail.td surface does not serve (`served`: its public and Pro domains): mail to
    /// them would not be delivered to the accounts made on them.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_MAILTM_DOMAINS`.
    public func validate(servedBy served: [String]) throws {
        let served = Set(served.map { EmailDomain.key($0) })
        for domain in domains ?? [] where !served.contains(domain) {
            throw ConfigurationError(
                key: "POSTERN_MAILTM_DOMAINS",
                message: "\(domain) is not one of POSTERN_MAILBOX_DOMAINS or POSTERN_MAILBOX_PRO_DOMAINS")
        }
    }
}
