import CustomDomains
import Directory
import EmailAddresses
import Fetch
import PasswordHashing
import ServerKit

/// Everything the Mail.td compatible surface can be configured with.
///
/// The defaults are the contract's (CONTRACT.md section 2); test suites lower `powDifficulty` and the
/// Argon2 cost and switch `rateLimitsEnabled` off. ``init(config:)`` reads the operator's keys from a reader scoped to
/// `POSTERN_MAILBOX` (and the billing page's) and refuses a bad value naming its key; the composition root sets the
/// issuer and what other surfaces share (rate limits, instances, MX host, resolver, outbound policy, webhooks,
/// sandbox).
///
/// ## Configuration keys
/// - `POSTERN_MAILBOX_POW_DIFFICULTY` (integer, 0 to 64, default 20): ``powDifficulty``.
/// - `POSTERN_MAILBOX_POW_REQUIRED` (on or off, default on): ``powRequired``.
/// - `POSTERN_MAILBOX_DOMAINS` (comma-separated, at least one, default `mail.localhost`): ``domains``.
/// - `POSTERN_MAILBOX_PRO_DOMAINS` (comma-separated, default none): ``proDomains``.
/// - `POSTERN_MAILBOX_SOCKETS_PER_ACCOUNT` (integer, 1 to 100,000, default 3): ``socketsPerAccount``.
/// - `POSTERN_BILLING_PORTAL_URL` (a URL, default unset): ``billingPortalURL``.
/// - `POSTERN_OPERATOR_TOKEN` (at least 32 characters, default unset): ``operatorToken``.
public struct MailboxConfiguration: Sendable {
    /// `iss` of every mailbox and Pro JWT. Default `"postern"`; the app sets it from `JWT_ISSUER`.
    public var issuer: String
    /// Leading zero bits a free account's proof of work needs. Default 20; `0` accepts any nonce.
    public var powDifficulty: Int
    /// Seconds a challenge stays valid after `GET /api/challenge`. Default 300.
    public var challengeTTL: Int64
    /// Public domains, in display order; the first is the default. Default `["mail.localhost"]`.
    public var domains: [String]
    /// Domains only Pro users may create accounts on. Default empty.
    public var proDomains: [String]
    /// `false` disables every rate limit (test suites). Default `true`.
    public var rateLimitsEnabled: Bool
    /// Storage quotas in bytes reported for accounts.
    public var quotas: MailboxQuotas
    /// Whether an account created without a Pro bearer needs a solved `pow` (Mail.td's v1 rule, the
    /// default). `false` is Mail.td's v2 behaviour: its SDK 2.x sends no proof; a `pow` that is sent is still
    /// checked. `POSTERN_MAILBOX_POW_REQUIRED`.
    public var powRequired: Bool
    /// Argon2id cost for Pro user passwords and for account passwords stored before `auth_key`. Default
    /// m=19456 KiB, t=2, p=1.
    public var argon2: Argon2Parameters
    /// Argon2id cost of deriving `auth_key` from a v1 password. Default: Mail.td's (m=16384 KiB, t=3, p=1), which
    /// its v2 clients compute too; any other value breaks sign-in between the two protocols (test suites only).
    public var authKeyArgon2: Argon2Parameters
    /// Lifetime of mailbox and Pro JWTs in seconds. Default 7 days.
    public var tokenTTL: Int64
    /// Token-bucket rates per client address and class.
    public var rateLimits: MailboxRateLimits
    /// How many instances enforce these limits together (`POSTERN_INSTANCES`): this one takes its share of
    /// each (`TokenBucketRate.share(among:)`). Default 1.
    public var instances = 1
    /// Slots of the rate-limit table (all classes together); memory stays bounded by it whatever the
    /// number of distinct client addresses. Default 65,536 (1.5 MiB, allocated as it is used).
    public var rateLimitTableCapacity: Int
    /// `max_accounts` given to a Pro user when the operator names none. Default 100.
    public var defaultProMaxAccounts: Int
    /// `/api/ws` sockets open at once for one account, across instances: mail.cx's documented 3 by default; a
    /// benchmark or an operator's own fleet of listeners raises it. `POSTERN_MAILBOX_SOCKETS_PER_ACCOUNT`.
    public var socketsPerAccount = 3
    /// `max_domains` given to a Pro user when the operator names none: the contract's 5.
    public var defaultProMaxDomains = 5
    /// The host a custom domain's MX must name (`POSTERN_MX_HOST`); shown in the domain's DNS records.
    public var mxHost = "localhost"
    /// The resolver custom domains are checked with (`POSTERN_DNS_RESOLVER=host:port`); nil: /etc/resolv.conf's.
    public var dnsResolver: String?
    /// The longest one custom-domain lookup (TXT or MX, asked together) may take. Default 3 s.
    public var dnsTimeout: Duration = .seconds(3)
    /// Seconds a custom domain may stay pending: past it the claim is deleted (verification answers 410
    /// `domain_expired` that once, listing no longer shows it) and blocks nobody. Default 7 days.
    public var domainVerificationWindow: Int64 = 7 * 24 * 3600
    /// Other surfaces' mailboxes on custom domains (owners' agent inboxes): a Pro user makes no account at an address
    /// one of them has (``CustomDomains``; the claims themselves are one table for every surface). Default none.
    public var otherDomainMailboxes: [any CustomDomainMailboxes] = []
    /// Mailboxes anyone may follow on `/api/ws` by naming their address, with no token: mail.cx's implicit mailboxes
    /// (`MailCXDirectory`, every address of `POSTERN_MAILCX_DOMAINS`), set by the composition root. An address is one
    /// when this directory resolves it local. Default none.
    public var openMailboxes: (any AccountDirectory)?
    /// The domains this server serves besides Mail.td's (the agent inbox domain), set by the composition root: nobody
    /// may claim them as a custom domain, as nobody may claim ``domains`` or ``proDomains``.
    public var otherServedDomains: [String] = []
    /// The DKIM keys of Pro users' custom domains (``CustomDomains``' ``DomainSigningKeys``): made when a domain is
    /// added, their `_domainkey` TXT records listed in `dns_records`. Default none (no keys made, no such records).
    public var domainSigningKeys: (any DomainSigningKeys)?
    /// What `POST /api/user/billing/portal` answers with (`POSTERN_BILLING_PORTAL_URL`, an operator's page); nil: 501
    /// `billing_not_available`, as cancel and resume always are.
    public var billingPortalURL: String?
    /// The outbound policy webhook URLs are vetted against when they are created (`POSTERN_OUTBOUND_ALLOW_PRIVATE`,
    /// `POSTERN_OUTBOUND_ALLOWED_HOSTS`). Default: `https` to global addresses only.
    public var outboundPolicy = OutboundPolicy()
    /// Delays in seconds before each webhook retry (`POSTERN_WEBHOOK_RETRY_SECONDS`), as `/llms.txt` states them.
    public var webhookRetrySeconds = [30, 120, 600, 3600, 21600]
    /// The SMTP sandbox's submission host shown in `GET /api/user/sandbox` (`POSTERN_SMTP_HOSTNAME`). Default
    /// `localhost`.
    public var sandboxSMTPHost = "localhost"
    /// The sandbox listener's bound port; nil when it is off (`POSTERN_SANDBOX_SMTP_PORT=off`).
    public var sandboxSMTPPort: Int?
    /// Bytes one sandbox may hold (the contract's 100 MB); a capture past it is refused `552 5.2.2`.
    public var sandboxQuota: Int64 = 104_857_600
    /// The bearer token of the operator routes (`/api/operator/messages`: search, wait, read, delete and reset
    /// across every address), at least 32 characters. Nil (the default): the routes are not registered, so they
    /// answer 404.
    public var operatorToken: String?
    /// Secret that authenticates stateless challenges (at least 32 bytes). `nil` (default): a secret
    /// generated once and kept in the database, so challenges survive a restart.
    public var challengeSecret: [UInt8]?

    /// Creates a configuration; every parameter defaults to the contract's value.
    public init(
        issuer: String = "postern",
        powDifficulty: Int = 20,
        challengeTTL: Int64 = 300,
        domains: [String] = ["mail.localhost"],
        proDomains: [String] = [],
        rateLimitsEnabled: Bool = true,
        quotas: MailboxQuotas = MailboxQuotas(),
        powRequired: Bool = true,
        argon2: Argon2Parameters = Argon2Parameters(),
        authKeyArgon2: Argon2Parameters = .mailTDAuthKey,
        tokenTTL: Int64 = 7 * 24 * 3600,
        rateLimits: MailboxRateLimits = MailboxRateLimits(),
        rateLimitTableCapacity: Int = 65_536,
        defaultProMaxAccounts: Int = 100,
        challengeSecret: [UInt8]? = nil
    ) {
        self.issuer = issuer
        self.powDifficulty = powDifficulty
        self.challengeTTL = challengeTTL
        self.domains = domains.map { EmailDomain.key($0) }
        self.proDomains = proDomains.map { EmailDomain.key($0) }
        self.rateLimitsEnabled = rateLimitsEnabled
        self.quotas = quotas
        self.powRequired = powRequired
        self.argon2 = argon2
        self.authKeyArgon2 = authKeyArgon2
        self.tokenTTL = tokenTTL
        self.rateLimits = rateLimits
        self.rateLimitTableCapacity = rateLimitTableCapacity
        self.defaultProMaxAccounts = defaultProMaxAccounts
        self.challengeSecret = challengeSecret
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it).
    /// Domains are kept as written; ``init(issuer:powDifficulty:challengeTTL:domains:proDomains:rateLimitsEnabled:quotas:powRequired:argon2:authKeyArgon2:tokenTTL:rateLimits:rateLimitTableCapacity:defaultProMaxAccounts:challengeSecret:)``
    /// lowercases them.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init()
        if let url = config.text("POSTERN_BILLING_PORTAL_URL") { billingPortalURL = url }
        operatorToken = config.raw("POSTERN_OPERATOR_TOKEN")
        let config = config.scoped(to: "POSTERN_MAILBOX")
        if let bits = try config.integer("POW_DIFFICULTY") { powDifficulty = bits }
        if let on = try config.flag("POW_REQUIRED") { powRequired = on }
        if let list = config.list("DOMAINS") { domains = list }
        if let list = config.list("PRO_DOMAINS") { proDomains = list }
        if let count = try config.integer("SOCKETS_PER_ACCOUNT") { socketsPerAccount = count }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...64).contains(powDifficulty) else {
            throw ConfigurationError(key: "POSTERN_MAILBOX_POW_DIFFICULTY", message: "must be from 0 to 64")
        }
        guard (1...100_000).contains(socketsPerAccount) else {
            throw ConfigurationError(key: "POSTERN_MAILBOX_SOCKETS_PER_ACCOUNT", message: "must be from 1 to 100000")
        }
        guard !domains.isEmpty else {
            throw ConfigurationError(key: "POSTERN_MAILBOX_DOMAINS", message: "must list at least one domain")
        }
        if let operatorToken, operatorToken.utf8.count < 32 {
            throw ConfigurationError(key: "POSTERN_OPERATOR_TOKEN", message: "must be at least 32 characters")
        }
    }
}

/// Storage quotas, in bytes, reported as `quota` for mailbox accounts.
public struct MailboxQuotas: Sendable, Equatable {
    /// Quota of an account created without a Pro bearer. Default 40 MiB (41,943,040), as Mail.td shows.
    public var free: Int64
    /// Quota of an account created by a Pro user. Default 1 GiB.
    public var pro: Int64

    /// Creates quotas; defaults as documented on each property.
    public init(free: Int64 = 41_943_040, pro: Int64 = 1_073_741_824) {
        self.free = free
        self.pro = pro
    }
}

/// Token-bucket rates per client address, one bucket per class.
public struct MailboxRateLimits: Sendable, Equatable {
    /// Unauthenticated requests (domains, challenge, sign-in, Pro login). Default 8 per second.
    public var publicRate: TokenBucketRate
    /// Requests carrying a mailbox token. Default 8 per second.
    public var freeAuthenticated: TokenBucketRate
    /// Requests carrying a Pro JWT or Pro API token. Default 20 per second.
    public var pro: TokenBucketRate
    /// `POST /api/accounts` without a Pro bearer. Default 1 per 8 seconds.
    public var freeAccountCreation: TokenBucketRate
    /// `POST /api/accounts` with a Pro bearer. Default 8 per second.
    public var proAccountCreation: TokenBucketRate

    /// Creates rates; defaults are the contract's.
    public init(
        publicRate: TokenBucketRate = TokenBucketRate(requests: 8, perSeconds: 1),
        freeAuthenticated: TokenBucketRate = TokenBucketRate(requests: 8, perSeconds: 1),
        pro: TokenBucketRate = TokenBucketRate(requests: 20, perSeconds: 1),
        freeAccountCreation: TokenBucketRate = TokenBucketRate(requests: 1, perSeconds: 8),
        proAccountCreation: TokenBucketRate = TokenBucketRate(requests: 8, perSeconds: 1)
    ) {
        self.publicRate = publicRate
        self.freeAuthenticated = freeAuthenticated
        self.pro = pro
        self.freeAccountCreation = freeAccountCreation
        self.proAccountCreation = proAccountCreation
    }

    /// Every class's share when `instances` instances enforce these limits together (`TokenBucketRate.share`).
    public func share(among instances: Int) -> MailboxRateLimits {
        MailboxRateLimits(
            publicRate: publicRate.share(among: instances), freeAuthenticated: freeAuthenticated.share(among: instances),
            pro: pro.share(among: instances), freeAccountCreation: freeAccountCreation.share(among: instances),
            proAccountCreation: proAccountCreation.share(among: instances))
    }
}

extension Argon2Parameters {
    /// The cost Mail.td's protocol fixes for `auth_key`: m=16384 KiB, t=3, p=1.
    public static let mailTDAuthKey = Argon2Parameters(memoryKiB: 16_384, iterations: 3, parallelism: 1)
}
