import Audit
import CustomDomains
import ComputePool
import DNS
import EmailAddresses
import JWT
import MailStore
import Metrics
import PasswordHashing

/// Mail.td's accounts and Pro users without HTTP (issue 82): who a token or a password opens, an account's summary
/// and standing, a free account's sign-up, a mailbox token's issue, a Pro user's API tokens, and the domains. Every
/// door onto the accounts asks this one service: Mail.td's REST API (`MailTD`, on `MailboxRoutes`' `MailboxService`),
/// mail.tm's and mail.cx's APIs, the webhooks' and the sandbox's routes, the web inbox and the mail doors' sign-in
/// (IMAP, POP3), so a rule of an account is written once whatever door it is reached by. Built once by the
/// composition root.
public final class MailboxAccountService: Sendable {
    /// The configuration the service was created with (domains lower-cased).
    public let configuration: MailboxConfiguration
    package let store: MailboxStore
    /// The mail of every account, shared with SMTP delivery.
    package let mail: MailStore
    package let hasher: PasswordHasher
    package let credentials: MailboxCredentials
    package let tokens: MailboxTokens
    package let authorizer: MailboxAuthorizer
    /// Looks custom domains' TXT and MX records up.
    package let resolver: DNSResolver
    /// The claims of Pro users (and owners: one table, ``CustomDomains``), with Mail.td's accounts as the Pro users'
    /// mailboxes and the other surfaces' as given by ``MailboxConfiguration/otherDomainMailboxes``. Built once.
    package let customDomains: CustomDomains
    package let clock: @Sendable () -> Int64
    package let metrics: MailboxMetrics
    /// Where Pro tokens and Pro domains made and removed are recorded.
    package let audit: AuditTrail

    /// - Parameters:
    ///   - configuration: the accounts' settings (domains, quotas, Argon2, token lifetime).
    ///   - keys: the key set whose active HS256 key signs mailbox and Pro JWTs.
    ///   - store: the accounts' tables, over a migrated database (`migrations/sqlite/0003_mailbox.sql` and on).
    ///   - mail: the mail store the accounts' messages are in, shared with delivery (the composition root's).
    ///   - pool: the worker pool for Argon2.
    ///   - resolver: the runtime's one DNS resolver, which custom domains are checked with.
    ///   - customDomains: the runtime's one custom-domain model (every surface's mailboxes, the DKIM keys).
    ///   - clock: Unix seconds, for tokens and `created_at`.
    ///   - metricsFactory: where counters go; nil uses `MetricsSystem.factory` (bootstrap it first).
    ///   - audit: where Pro tokens and domains made, verified and removed are recorded (actor `pro`, no owner).
    public init(
        configuration: MailboxConfiguration, keys: JWTKeySet, store: MailboxStore, mail: MailStore, pool: WorkerPool,
        resolver: DNSResolver, customDomains: CustomDomains, clock: @escaping @Sendable () -> Int64,
        metricsFactory: (any MetricsFactory)? = nil, audit: AuditTrail = .disabled
    ) {
        var configuration = configuration
        configuration.domains = configuration.domains.map { EmailDomain.key($0) }
        configuration.proDomains = configuration.proDomains.map { EmailDomain.key($0) }
        self.configuration = configuration
        self.store = store
        self.mail = mail
        self.hasher = PasswordHasher(parameters: configuration.argon2, pool: pool)
        self.credentials = MailboxCredentials(legacy: hasher, parameters: configuration.authKeyArgon2)
        let tokens = MailboxTokens(keys: keys, issuer: configuration.issuer, ttl: configuration.tokenTTL)
        self.tokens = tokens
        self.authorizer = MailboxAuthorizer(tokens: tokens, store: store, clock: clock)
        self.resolver = resolver
        self.customDomains = customDomains
        self.clock = clock
        self.metrics = MailboxMetrics(factory: metricsFactory ?? MetricsSystem.factory)
        self.audit = audit
    }
}
