import ConfigurationReading
import EmailAddresses
import ServerKit

/// Everything mail.cx's REST API (`MailCX`, issue 72) can be configured with.
///
/// mail.cx's model is an implicit mailbox at any address of its domains, readable by whoever knows the address, its
/// mail kept for an hour. Postern serves that only on the domains the operator gives this surface: none by default
/// (the surface then answers every inbox with `domain_not_allowed`), `mailcx.localhost` in the shipped
/// `config/postern.env` (`make run`) and under `--profile test`.
///
/// ## Configuration keys
/// - `POSTERN_MAILCX_PATH` (a path, default `/mailcx/v1`; `off` serves no mail.cx REST API): ``basePath``.
/// - `POSTERN_MAILCX_DOMAINS` (comma-separated, default none): ``domains``; none of them a Mail.td or agent domain
///   (`PosternConfiguration` checks it): an implicit mailbox must never be a Mail.td account's.
/// - `POSTERN_MAILCX_RETENTION_SECONDS` (1 to 604,800, default 3,600): ``retentionSeconds``.
/// - `POSTERN_MAILCX_HOLD_SECONDS` (1 to 25, default 25): ``holdSeconds``.
public struct MailCXConfiguration: Sendable {
    /// Where the API is mounted (mail.cx's `https://api.mail.cx/v1`). Nil: the surface is off. Default `/mailcx/v1`.
    public var basePath: String? = "/mailcx/v1"
    /// The domains whose every address is an implicit mailbox, lower-cased; the first is the default. Default none.
    public var domains: [String] = []
    /// How long mail at these addresses is kept, in seconds: mail.cx's hour by default. Older mail is deleted by the
    /// retention purge (``MailCXRetention``), every tenth of it (at most every minute).
    public var retentionSeconds: Int64 = 3600
    /// How long `GET /inbox/{address}` holds a request that has no new mail yet before answering 204: mail.cx's 25 s.
    public var holdSeconds = 25
    /// Bytes an implicit mailbox may hold. Default 40 MiB, a free Mail.td account's.
    public var quota: Int64 = 41_943_040
    /// Requests per client and second when ``rateLimitsEnabled``. Default 10.
    public var rate = TokenBucketRate(requests: 10, perSeconds: 1)
    /// `false` disables the rate limit (`POSTERN_RATE_LIMITS=off`, the test profile). Default `true`.
    public var rateLimitsEnabled = true
    /// How many instances enforce the limit together (`POSTERN_INSTANCES`). Default 1.
    public var instances = 1
    /// Slots of the rate-limit table. Default 65,536.
    public var rateLimitTableCapacity = 65_536
    /// The most emails a request may wait for (`count`) and list (`limit`): mail.cx's 50.
    public var maximumCount = 50
    /// Inbox long polls one client may have held at once; past it 429 `rate_limit_exceeded`. Default 10.
    public var heldPollsPerClient = 10
    /// Inbox long polls held at once on this instance; past it 503 `service_unavailable`. Default 10,000.
    public var heldPolls = 10_000

    /// A configuration with every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let path = config.text("POSTERN_MAILCX_PATH") { basePath = path == "off" ? nil : path }
        if let list = config.list("POSTERN_MAILCX_DOMAINS") { domains = list.map { EmailDomain.key($0) } }
        if let seconds = try config.integer("POSTERN_MAILCX_RETENTION_SECONDS") { retentionSeconds = Int64(seconds) }
        if let seconds = try config.integer("POSTERN_MAILCX_HOLD_SECONDS") { holdSeconds = seconds }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let basePath, !MountPath.isValid(basePath) {
            throw ConfigurationError(
                key: "POSTERN_MAILCX_PATH", message: "must be off or a path such as /mailcx/v1: a leading /, no trailing /")
        }
        guard (1...604_800).contains(retentionSeconds) else {
            throw ConfigurationError(key: "POSTERN_MAILCX_RETENTION_SECONDS", message: "must be from 1 to 604800")
        }
        guard (1...25).contains(holdSeconds) else {
            throw ConfigurationError(key: "POSTERN_MAILCX_HOLD_SECONDS", message: "must be from 1 to 25")
        }
    }

    /// Refuses a domain another surface serves (`others`: Mail.td's public and Pro domains, the agent inbox domain):
    /// whoever knows an address reads its mail here, so none may be an account's.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_MAILCX_DOMAINS`.
    public func validate(apartFrom others: [String]) throws {
        let others = Set(others.map { EmailDomain.key($0) })
        for domain in domains where others.contains(domain) {
            throw ConfigurationError(
                key: "POSTERN_MAILCX_DOMAINS", message: "\(domain) is served to accounts by another surface")
        }
    }

    /// How often the retention purge runs: a tenth of the retention, at most every minute.
    public var purgeInterval: Duration { .seconds(max(1, min(60, retentionSeconds / 10))) }
}
