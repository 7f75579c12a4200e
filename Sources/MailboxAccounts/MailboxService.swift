import Audit
import AuthCrypto
import ComputePool
import DNS
import HTTP1
import JWT
import MailStore
import Metrics
import PasswordHashing
import ServerKit
import Storage

/// The Mail.td compatible surface: accounts, tokens, Pro users and rate limits (CONTRACT.md 2).
///
/// The app creates one service at start and calls `register(into:)`; the operator commands call
/// `createProUser` and `listProUsers`. Handlers never throw to the server: every failure becomes a
/// `{"error":"<code>"}` answer (500 for the unexpected, 503 when the pool or database is unavailable).
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
    /// The per-client buckets of every class (nil when rate limits are off), the Mail.td error shape, and
    /// `Cache-Control: no-store` with the `RateLimit-*` headers on every answer.
    let middleware: SurfaceMiddleware<MailboxRateClass>
    let clock: @Sendable () -> Int64
    let metrics: MailboxMetrics
    let onUnexpectedError: UnexpectedErrorReporter?
    /// Where Pro tokens and Pro domains made and removed are recorded.
    let audit: AuditTrail

    /// Ledger surface name under which mailbox challenges are consumed.
    public static let ledgerSurface = "mailbox"
    /// Largest request body the surface's routes accept (a 4 KiB password plus room for the rest).
    public static let bodyLimit = 16 * 1024

    /// Creates the service. When the configuration has no `challengeSecret`, loads or creates the
    /// challenge secret in the database.
    /// - Parameters:
    ///   - configuration: the surface's settings.
    ///   - keys: the key set whose active HS256 key signs mailbox and Pro JWTs.
    ///   - database: a migrated database (`migrations/sqlite/0003_mailbox.sql` applied).
    ///   - ledger: the shared single-use ledger.
    ///   - pool: the worker pool for Argon2.
    ///   - dnsThreads: the threads domain checks' DNS lookups block on (the runtime's); a pool of its own when nil.
    ///   - mail: the mail store over `database` with the runtime's change stream; one of its own when nil.
    ///   - clock: Unix seconds, for tokens, challenges and `created_at`.
    ///   - monotonicClock: the clock the rate-limit buckets refill by.
    ///   - metricsFactory: where counters go; nil uses `MetricsSystem.factory` (bootstrap it first).
    ///   - onUnexpectedError: called with any error answered as a bare 500 and the request id, for the
    ///     app's log (the client sees only `{"error":"internal_error"}`). The errors of the crypto and
    ///     storage modules never carry secrets.
    ///   - audit: where Pro tokens and domains made, verified and removed are recorded (actor `pro`, no owner).
    /// - Throws: `StorageError` from the secret's table.
    public init(
        configuration: MailboxConfiguration, keys: JWTKeySet, database: any SQLDatabase, ledger: ChallengeLedger,
        pool: WorkerPool, dnsThreads: WorkerPool? = nil, mail: MailStore? = nil, clock: @escaping @Sendable () -> Int64,
        monotonicClock: MonotonicClock = .system, metricsFactory: (any MetricsFactory)? = nil,
        onUnexpectedError: UnexpectedErrorReporter? = nil, audit: AuditTrail = .disabled
    ) throws {
        self.audit = audit
        var configuration = configuration
        configuration.domains = configuration.domains.map { $0.lowercased() }
        configuration.proDomains = configuration.proDomains.map { $0.lowercased() }
        self.configuration = configuration
        let store = MailboxStore(database: database)
        self.store = store
        self.mail = mail ?? MailStore(database: database)
        self.ledger = ledger
        self.hasher = PasswordHasher(parameters: configuration.argon2, pool: pool)
        self.credentials = MailboxCredentials(legacy: hasher, parameters: configuration.authKeyArgon2)
        let tokens = MailboxTokens(keys: keys, issuer: configuration.issuer, ttl: configuration.tokenTTL)
        self.tokens = tokens
        self.authorizer = MailboxAuthorizer(tokens: tokens, store: store, clock: clock)
        let secret = try configuration.challengeSecret ?? store.secret(named: "challenge") { SecureRandom.bytes(32) }
        self.resolver = DNSResolver(
            server: configuration.dnsResolver.flatMap(DNSServerAddress.init) ?? .system,
            timeout: configuration.dnsTimeout, threads: dnsThreads ?? DNSResolver.threadPool())
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

    /// Adds every route of CONTRACT.md 2.2 to `router`; their rate limits charge the context's client.
    public func register(into router: inout ContextRouter) {
        let limit = Self.bodyLimit
        router.add(.GET, "/api/domains", immediate(.general, domains))
        router.add(.GET, "/api/challenge", immediate(.general, challenge))
        router.add(.POST, "/api/accounts", bodyLimit: limit, deferred(.accountCreation, createAccount))
        router.add(.POST, "/api/token", bodyLimit: limit, deferred(.general, signIn))
        router.add(.GET, "/api/accounts/{id}", deferred(.general, accountInfo))
        router.add(.DELETE, "/api/accounts/{id}", deferred(.general, deleteAccount))
        router.add(.PUT, "/api/accounts/{id}/reset-password", bodyLimit: limit, deferred(.general, resetPassword))
        router.add(.POST, "/api/user/login", bodyLimit: limit, deferred(.general, proLogin))
        router.add(.GET, "/api/user/me", deferred(.general, proProfile))
        router.add(.GET, "/api/user/accounts", deferred(.general, proAccounts))
        router.add(.DELETE, "/api/user/accounts/{id}", deferred(.general, proDeleteAccount))
        router.add(
            .PUT, "/api/user/accounts/{id}/reset-password", bodyLimit: limit, deferred(.general, proResetPassword))
        router.add(.POST, "/api/user/tokens", bodyLimit: limit, deferred(.general, createAPIToken))
        router.add(.GET, "/api/user/tokens", deferred(.general, listAPITokens))
        router.add(.DELETE, "/api/user/tokens/{id}", deferred(.general, revokeAPIToken))
        router.add(.GET, "/api/user/domains", deferred(.general, listDomains))
        router.add(.POST, "/api/user/domains", bodyLimit: limit, deferred(.general, createDomain))
        router.add(.POST, "/api/user/domains/{id}/verify", bodyLimit: limit, deferred(.general, verifyDomain))
        router.add(.DELETE, "/api/user/domains/{id}", deferred(.general, deleteDomain))
        router.add(.GET, "/api/user/webhooks", deferred(.general, listWebhooks))
        router.add(.POST, "/api/user/webhooks", bodyLimit: limit, deferred(.general, createWebhook))
        router.add(.DELETE, "/api/user/webhooks/{id}", deferred(.general, deleteWebhook))
        router.add(.POST, "/api/user/webhooks/{id}/rotate", bodyLimit: limit, deferred(.general, rotateWebhook))
        router.add(.GET, "/api/user/webhooks/{id}/deliveries", deferred(.general, webhookDeliveries))
        let sandbox = "/api/user/sandbox"
        router.add(.GET, sandbox, deferred(.general, sandboxInfo))
        router.add(.GET, sandbox + "/messages", deferred(.general, sandboxMessages))
        router.add(.GET, sandbox + "/messages/wait", deferred(.general, waitForSandboxMessage))
        router.add(.DELETE, sandbox + "/messages", deferred(.general, purgeSandbox))
        router.add(.GET, sandbox + "/messages/{messageID}", deferred(.general, sandboxMessage))
        router.add(.DELETE, sandbox + "/messages/{messageID}", deferred(.general, deleteSandboxMessage))
        router.add(.GET, sandbox + "/messages/{messageID}/source", deferred(.general, sandboxSource))
        router.add(.GET, sandbox + "/messages/{messageID}/attachments/{index}", deferred(.general, sandboxAttachment))
        router.add(.GET, "/api/user/subscription/status", deferred(.general, subscriptionStatus))
        router.add(.POST, "/api/user/subscription/cancel", bodyLimit: limit, deferred(.general, subscriptionChange))
        router.add(.POST, "/api/user/subscription/resume", bodyLimit: limit, deferred(.general, subscriptionChange))
        router.add(.POST, "/api/user/billing/portal", bodyLimit: limit, deferred(.general, billingPortal))
        for prefix in ["/api/accounts/{id}", "/api/user/accounts/{id}"] {
            router.add(.GET, prefix + "/messages", deferred(.general, listMessages))
        }
        let messages = "/api/accounts/{id}/messages"
        router.add(.PUT, messages + "/read", bodyLimit: limit, deferred(.general, markMessagesRead))
        router.add(.GET, messages + "/wait", deferred(.general, waitForMessage))
        registerOperatorRoutes(into: &router)
        router.add(.GET, messages + "/{messageID}", deferred(.general, messageDetail))
        router.add(.DELETE, messages + "/{messageID}", deferred(.general, deleteMessage))
        router.add(.GET, messages + "/{messageID}/source", deferred(.general, messageSource))
        router.add(.PUT, messages + "/{messageID}/read", deferred(.general, markMessageRead))
        router.add(.GET, messages + "/{messageID}/attachments/{index}", deferred(.general, messageAttachment))
    }
}
