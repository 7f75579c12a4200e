import MailboxAccounts
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

/// What every route of Mail.td's shape shares (CONTRACT.md 2): the accounts it runs on, the bearer rules, the rate
/// limits and the answers in Mail.td's error shape.
///
/// The doors on it add their own routes: Mail.td's REST API (`MailTD`), the operator's API (`OperatorAPI`), the
/// webhooks (`Webhooks`), the sandbox (`MailSandbox`) and the Pro dashboard (`MailboxWebInbox`). It serves no route
/// itself and holds no rule of the accounts: those are ``MailboxAccountService``'s, without HTTP. Handlers never throw
/// to the server: every failure becomes a `{"error":"<code>"}` answer (500 for the unexpected, 503 when the pool or
/// database is unavailable).
public final class MailboxService: Sendable {
    /// The accounts this API serves, without HTTP: what every other door onto them is given too.
    public let accounts: MailboxAccountService
    /// The configuration the service was created with (domains lower-cased).
    public var configuration: MailboxConfiguration { accounts.configuration }
    package var store: MailboxStore { accounts.store }
    /// The mail of every account, shared with SMTP delivery.
    package var mail: MailStore { accounts.mail }
    package var hasher: PasswordHasher { accounts.hasher }
    package var credentials: MailboxCredentials { accounts.credentials }
    package var tokens: MailboxTokens { accounts.tokens }
    package var authorizer: MailboxAuthorizer { accounts.authorizer }
    package var resolver: DNSResolver { accounts.resolver }
    package var customDomains: CustomDomains { accounts.customDomains }
    package var clock: @Sendable () -> Int64 { accounts.clock }
    package var metrics: MailboxMetrics { accounts.metrics }
    package var audit: AuditTrail { accounts.audit }
    package let ledger: ChallengeLedger
    package let challenges: MailboxChallenges
    /// The per-client buckets of every class (nil when rate limits are off), the Mail.td error shape, and
    /// `Cache-Control: no-store` with the `RateLimit-*` headers on every answer.
    let middleware: SurfaceMiddleware<MailboxRateClass>
    package let onUnexpectedError: UnexpectedErrorReporter?
    /// Whether Pro user `id`'s password asks a second step under the second factor's policy (issue 88: a code, or the
    /// required setup): then `POST /api/user/login` refuses their password as it refuses a wrong one, so a password
    /// alone makes no Pro JWT (nor, through it, a `tm_pro_` token that would sign in to the web inbox without the
    /// step); the dashboard, after the second step, makes their tokens.
    package let proPasswordAsksSecondStep: @Sendable (_ id: String) async throws -> Bool

    /// Ledger surface name under which mailbox challenges are consumed.
    public static let ledgerSurface = "mailbox"
    /// Largest request body the surface's routes accept (a 4 KiB password plus room for the rest).
    public static let bodyLimit = 16 * 1024

    /// Creates the API with accounts of its own (tests; the runtime builds one ``MailboxAccountService`` and gives
    /// it to ``init(accounts:ledger:monotonicClock:onUnexpectedError:)``).
    /// The parameters are those of ``MailboxAccountService`` and of that initialiser.
    /// - Throws: `StorageError` from the challenge secret's table.
    public convenience init(
        configuration: MailboxConfiguration, keys: JWTKeySet, store: MailboxStore, mail: MailStore,
        ledger: ChallengeLedger, pool: WorkerPool, resolver: DNSResolver, customDomains: CustomDomains,
        clock: @escaping @Sendable () -> Int64,
        monotonicClock: MonotonicClock = .system, metricsFactory: (any MetricsFactory)? = nil,
        onUnexpectedError: UnexpectedErrorReporter? = nil, audit: AuditTrail = .disabled
    ) throws {
        try self.init(
            accounts: MailboxAccountService(
                configuration: configuration, keys: keys, store: store, mail: mail, pool: pool, resolver: resolver,
                customDomains: customDomains, clock: clock, metricsFactory: metricsFactory, audit: audit),
            ledger: ledger, monotonicClock: monotonicClock, onUnexpectedError: onUnexpectedError)
    }

    /// Creates the API over `accounts` (the composition root's one accounts service). When the configuration has no
    /// `challengeSecret`, loads or creates the challenge secret in the database.
    /// - Parameters:
    ///   - accounts: the accounts, their tokens and Pro users (the configuration is theirs).
    ///   - ledger: the shared single-use ledger.
    ///   - monotonicClock: the clock the rate-limit buckets refill by.
    ///   - onUnexpectedError: called with any error answered as a bare 500 and the request id, for the
    ///     app's log (the client sees only `{"error":"internal_error"}`). The errors of the crypto and
    ///     storage modules never carry secrets.
    ///   - proPasswordAsksSecondStep: whether a Pro user's (by id) password asks a second step, and then makes no Pro
    ///     JWT; never by default.
    /// - Throws: `StorageError` from the secret's table.
    public init(
        accounts: MailboxAccountService, ledger: ChallengeLedger, monotonicClock: MonotonicClock = .system,
        onUnexpectedError: UnexpectedErrorReporter? = nil,
        proPasswordAsksSecondStep: @escaping @Sendable (_ id: String) async throws -> Bool = { _ in false }
    ) throws {
        self.accounts = accounts
        self.proPasswordAsksSecondStep = proPasswordAsksSecondStep
        let configuration = accounts.configuration
        self.ledger = ledger
        let secret = try configuration.challengeSecret
            ?? accounts.store.secret(named: "challenge") { SecureRandom.bytes(32) }
        self.challenges = MailboxChallenges(
            secret: secret, difficulty: configuration.powDifficulty, ttl: configuration.challengeTTL)
        let rates = configuration.rateLimits.share(among: configuration.instances)
        let slots = configuration.rateLimitTableCapacity
        let metrics = accounts.metrics
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
        self.onUnexpectedError = onUnexpectedError
    }

    /// The id of the active Pro user the call's bearer names (a Pro JWT or a live `tm_pro_` API token): what the
    /// webhooks' and the sandbox's routes ask.
    /// - Throws: ``MailboxError/invalidOrExpiredToken`` for anything else (anonymous, a mailbox token); storage errors.
    public func requireProUserID(_ call: MailboxCall) async throws -> String {
        try await authorizer.requireProUser(call.bearer).id
    }

    /// A Pro user's change on the operator's trail, from the call's client address.
    package func recordPro(_ userID: String, _ action: AuditAction, target: String, _ call: MailboxCall) async {
        await accounts.recordPro(userID, action, target: target, clientAddress: call.context.clientAddress?.description)
    }
}
