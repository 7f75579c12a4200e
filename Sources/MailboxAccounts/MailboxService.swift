import Audit
import CustomDomains
import AuthCrypto
import ComputePool
import DNS
import EmailAddresses
import HTTP1
import JWT
import MailStore
import Metrics
import PasswordHashing
import ServerKit
import Storage

/// The Mail.td compatible surface: accounts, tokens, Pro users and rate limits (CONTRACT.md 2).
///
/// What every resource's controller shares: the stores it is given, the bearer rules, the rate limits and the answers.
/// The app creates one service at start and calls `register(into:)`, which adds each resource's controller
/// (``MessagesController`` and the others); the webhooks (`Webhooks`) and the sandbox (`MailSandbox`) add their own
/// routes over this service. The operator commands call `createProUser` and `listProUsers`. Handlers never throw to the
/// server: every failure becomes a `{"error":"<code>"}` answer (500 for the unexpected, 503 when the pool or database
/// is unavailable).
public final class MailboxService: Sendable {
    /// The configuration the service was created with (domains lower-cased).
    public let configuration: MailboxConfiguration
    let store: MailboxStore
    /// The mail of every account, shared with SMTP delivery.
    let mail: MailStore
    let ledger: ChallengeLedger
    let hasher: PasswordHasher
    let credentials: MailboxCredentials
    let tokens: MailboxTokens
    let authorizer: MailboxAuthorizer
    let challenges: MailboxChallenges
    /// Looks custom domains' TXT and MX records up.
    let resolver: DNSResolver
    /// The claims of Pro users (and owners: one table, ``CustomDomains``), with Mail.td's accounts as the Pro users'
    /// mailboxes and the other surfaces' as given by ``MailboxConfiguration/otherDomainMailboxes``. Built once.
    let customDomains: CustomDomains
    /// The per-client buckets of every class (nil when rate limits are off), the Mail.td error shape, and
    /// `Cache-Control: no-store` with the `RateLimit-*` headers on every answer.
    let middleware: SurfaceMiddleware<MailboxRateClass>
    let clock: @Sendable () -> Int64
    let metrics: MailboxMetrics
    let onUnexpectedError: UnexpectedErrorReporter?
    /// Where Pro tokens and Pro domains made and removed are recorded.
    let audit: AuditTrail
    /// What keeps records beside the store's messages (the sandbox's), forgotten with every message by the operator.
    let recordsBesideMessages: [any MailboxMessageRecords]
    /// The other surfaces' accounts (the agents'), removed with the Mail.td accounts by `?reset=accounts`.
    let accountsBesideMailboxes: [any OperatorAccountReset]
    /// The operator's resets on this instance, for the open `/api/operator/events` sockets.
    let operatorResets = OperatorResets()
    /// When this service was made (``clock``'s seconds): the accounts an operator's `?reset=accounts` removes are
    /// those created from then on.
    let startedAt: Int64

    /// Ledger surface name under which mailbox challenges are consumed.
    public static let ledgerSurface = "mailbox"
    /// Largest request body the surface's routes accept (a 4 KiB password plus room for the rest).
    public static let bodyLimit = 16 * 1024

    /// Creates the service. When the configuration has no `challengeSecret`, loads or creates the
    /// challenge secret in the database.
    /// - Parameters:
    ///   - configuration: the surface's settings.
    ///   - keys: the key set whose active HS256 key signs mailbox and Pro JWTs.
    ///   - store: the surface's tables, over a migrated database (`migrations/sqlite/0003_mailbox.sql` and on).
    ///   - mail: the mail store the accounts' messages are in, shared with delivery (the composition root's).
    ///   - ledger: the shared single-use ledger.
    ///   - pool: the worker pool for Argon2.
    ///   - resolver: the runtime's one DNS resolver, which custom domains are checked with.
    ///   - customDomains: the runtime's one custom-domain model (every surface's mailboxes, the DKIM keys).
    ///   - clock: Unix seconds, for tokens, challenges and `created_at`.
    ///   - monotonicClock: the clock the rate-limit buckets refill by.
    ///   - metricsFactory: where counters go; nil uses `MetricsSystem.factory` (bootstrap it first).
    ///   - onUnexpectedError: called with any error answered as a bare 500 and the request id, for the
    ///     app's log (the client sees only `{"error":"internal_error"}`). The errors of the crypto and
    ///     storage modules never carry secrets.
    ///   - audit: where Pro tokens and domains made, verified and removed are recorded (actor `pro`, no owner).
    ///   - recordsBesideMessages: what keeps records of its own beside the mail store's messages (the sandbox's),
    ///     forgotten when the operator deletes every message.
    ///   - accountsBesideMailboxes: the other surfaces' accounts (the agents'), which the operator's
    ///     `?reset=accounts` removes with the Mail.td accounts made since the start.
    /// - Throws: `StorageError` from the secret's table.
    public init(
        configuration: MailboxConfiguration, keys: JWTKeySet, store: MailboxStore, mail: MailStore,
        ledger: ChallengeLedger, pool: WorkerPool, resolver: DNSResolver, customDomains: CustomDomains,
        clock: @escaping @Sendable () -> Int64,
        monotonicClock: MonotonicClock = .system, metricsFactory: (any MetricsFactory)? = nil,
        onUnexpectedError: UnexpectedErrorReporter? = nil, audit: AuditTrail = .disabled,
        recordsBesideMessages: [any MailboxMessageRecords] = [],
        accountsBesideMailboxes: [any OperatorAccountReset] = []
    ) throws {
        self.audit = audit
        self.recordsBesideMessages = recordsBesideMessages
        self.accountsBesideMailboxes = accountsBesideMailboxes
        self.startedAt = clock()
        var configuration = configuration
        configuration.domains = configuration.domains.map { EmailDomain.key($0) }
        configuration.proDomains = configuration.proDomains.map { EmailDomain.key($0) }
        self.configuration = configuration
        self.store = store
        self.mail = mail
        self.ledger = ledger
        self.hasher = PasswordHasher(parameters: configuration.argon2, pool: pool)
        self.credentials = MailboxCredentials(legacy: hasher, parameters: configuration.authKeyArgon2)
        let tokens = MailboxTokens(keys: keys, issuer: configuration.issuer, ttl: configuration.tokenTTL)
        self.tokens = tokens
        self.authorizer = MailboxAuthorizer(tokens: tokens, store: store, clock: clock)
        let secret = try configuration.challengeSecret ?? store.secret(named: "challenge") { SecureRandom.bytes(32) }
        self.resolver = resolver
        self.customDomains = customDomains
        self.challenges = MailboxChallenges(
            secret: secret, difficulty: configuration.powDifficulty, ttl: configuration.challengeTTL)
        let rates = configuration.rateLimits.share(among: configuration.instances)
        let slots = configuration.rateLimitTableCapacity
        let metrics = MailboxMetrics(factory: metricsFactory ?? MetricsSystem.factory)
        self.middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: slots, clock: monotonicClock) { rates.rate(of: $0) } : nil,
            rejected: { metrics.rejected($0) },
            tooManyRequests: { _, _ in MailboxJSON.response(.rateLimitExceeded) },
            failure: { error in
                let (answer, report) = Self.mailboxError(error)
                return (MailboxJSON.response(answer), report)
            },
            finish: { response, decision in
                var response = response
                response.headers.replaceOrAdd("Cache-Control", "no-store")
                if let decision { response.headers.setRateLimit(decision) }
                return response
            },
            onUnexpectedError: onUnexpectedError)
        self.clock = clock
        self.metrics = metrics
        self.onUnexpectedError = onUnexpectedError
    }

    /// Adds the routes of CONTRACT.md 2.2 that are the accounts' to `router`, one controller per resource (accounts,
    /// Pro users, their API tokens, their domains, billing, messages, the operator's); their rate limits charge the
    /// context's client. The webhook routes (`Webhooks`) and the sandbox's (`MailSandbox`) are added by their own
    /// controllers over this service.
    public func register(into router: inout ContextRouter) {
        AccountsController(surface: self).register(on: &router)
        ProUsersController(surface: self).register(on: &router)
        ProTokensController(surface: self).register(on: &router)
        registerDomainRoutes(into: &router)
        BillingController(surface: self).register(on: &router)
        MessagesController(surface: self).register(on: &router)
        OperatorController(surface: self).register(on: &router)
        MailboxSocketController(surface: self).register(on: &router)
    }

    /// The Pro users' custom domains (`MailboxService+Domains.swift`, about to become one claims table of its own).
    private func registerDomainRoutes(into router: inout ContextRouter) {
        let limit = Self.bodyLimit
        router.add(.GET, "/api/user/domains", deferred(.general, listDomains))
        router.add(.POST, "/api/user/domains", bodyLimit: limit, deferred(.general, createDomain))
        router.add(.POST, "/api/user/domains/{id}/verify", bodyLimit: limit, deferred(.general, verifyDomain))
        router.add(.DELETE, "/api/user/domains/{id}", deferred(.general, deleteDomain))
    }
}
