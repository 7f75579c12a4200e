import AuthCrypto
import ComputePool
import HTTP1
import JWT
import Metrics
import ServerKit
import Storage

/// Surface 1 of Postern: Atomic Mail compatible agent signup (CONTRACT.md section 1).
///
/// Serves `POST /api/v1/challenge`, `POST /api/v1/session` and `POST /api/v1/capability`; its `/llms.txt` section
/// is ``AgentLLMsText``.
/// Create it once at start, after the metrics system is bootstrapped, and add its routes with
/// ``register(into:)``. Handlers never throw: every failure becomes the surface's error shape.
public final class AgentAuthService: Sendable {
    /// Ledger surface name of consumed challenges.
    static let ledgerSurface = "agent"
    /// Clock skew accepted when verifying tokens, in seconds.
    static let leeway: Int64 = 30
    /// Body limit of `POST /api/v1/session`, in bytes.
    public static let sessionBodyLimit = 4_096
    /// Body limit of the endpoints that need no body.
    public static let emptyBodyLimit = 1_024

    /// The configuration the service was created with.
    public let configuration: AgentAuthConfiguration
    let keys: JWTKeySet
    /// What a challenge bearer must be: HS256, `pur:"challenge"`, this issuer, at most `challengeTTL` long.
    let challengePolicy: JWTPolicy
    /// What a session bearer must be: HS256, `pur:"session"`, this issuer, at most `sessionTTL` long.
    let sessionPolicy: JWTPolicy
    let ledger: ChallengeLedger
    let accounts: AgentAccountStore
    let pool: WorkerPool
    let clock: @Sendable () -> Int64
    let policy: DifficultyPolicy
    /// Challenges per client in the last minute; nil when dynamic difficulty is off.
    let counter: ClientEventCounter?
    let metrics: AgentAuthMetrics
    let onUnexpectedError: UnexpectedErrorReporter?
    let nextSteps: AgentNextSteps
    let challengeBody: ChallengeBodyTemplate
    /// The body of every capability answer: it depends only on the configuration, so it is built once.
    let capabilityBody: String
    /// Per-client buckets of the three endpoints (nil when rate limits are off) and the agent error shape.
    let middleware: SurfaceMiddleware<RateClass>

    /// What a request draws on: each endpoint has its own bucket per client.
    enum RateClass: Hashable, Sendable {
        case challenge
        case session
        case capability
    }

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: the surface's settings.
    ///   - keys: the key set; its active HS256 key signs challenges and sessions, its active RS256 key signs
    ///     capabilities.
    ///   - database: the database with migrations `0001_core.sql` and `0002_agent.sql` applied.
    ///   - ledger: the challenge ledger over the same database.
    ///   - pool: the worker pool for scrypt and RSA signing.
    ///   - clock: the current time in Unix seconds, for token claims.
    ///   - monotonicClock: the clock the dynamic-difficulty window slides by (a wall-clock step must not
    ///     reset or stretch it).
    ///   - metricsFactory: where metrics go; `nil` means `MetricsSystem.factory` as bootstrapped at this point.
    ///   - onUnexpectedError: called with any error answered as a bare 500 and the request id, for the
    ///     app's log (the client sees only the generic message).
    public init(
        configuration: AgentAuthConfiguration, keys: JWTKeySet, database: any SQLDatabase, ledger: ChallengeLedger,
        pool: WorkerPool, clock: @escaping @Sendable () -> Int64, monotonicClock: MonotonicClock = .system,
        metricsFactory: (any MetricsFactory)? = nil, onUnexpectedError: UnexpectedErrorReporter? = nil
    ) {
        self.configuration = configuration
        self.keys = keys
        self.challengePolicy = JWTPolicy(
            purpose: .challenge, issuer: configuration.issuer, maximumLifetime: configuration.challengeTTL)
        self.sessionPolicy = JWTPolicy(
            purpose: .session, issuer: configuration.issuer, maximumLifetime: configuration.sessionTTL)
        self.ledger = ledger
        self.accounts = AgentAccountStore(database: database)
        self.pool = pool
        self.clock = clock
        self.policy = DifficultyPolicy(
            base: configuration.baseDifficulty, maximum: configuration.maxDifficulty,
            dynamic: configuration.dynamicDifficulty)
        self.counter =
            configuration.dynamicDifficulty
            ? ClientEventCounter(capacity: configuration.counterCapacity, clock: monotonicClock) : nil
        self.metrics = AgentAuthMetrics(baseDifficulty: policy.base, factory: metricsFactory ?? MetricsSystem.factory)
        self.onUnexpectedError = onUnexpectedError
        self.nextSteps = AgentNextSteps(configuration)
        self.challengeBody = ChallengeBodyTemplate(salt: configuration.powSalt, next: nextSteps.challenge)
        self.capabilityBody = AgentJSON.object([
            ("expires_in", String(configuration.capabilityTTL)),
            ("_next", AgentJSON.array(nextSteps.capability)),
        ])
        let rates = (
            challenge: TokenBucketRate(requests: configuration.challengesPerMinute, perSeconds: 60)
                .share(among: configuration.instances),
            session: TokenBucketRate(requests: configuration.sessionsPerMinute, perSeconds: 60)
                .share(among: configuration.instances),
            capability: TokenBucketRate(requests: configuration.capabilitiesPerMinute, perSeconds: 60)
                .share(among: configuration.instances)
        )
        let limiter =
            configuration.rateLimitsEnabled
            ? RateLimitTable<RateClass>(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) {
                switch $0 {
                case .challenge: rates.challenge
                case .session: rates.session
                case .capability: rates.capability
                }
            } : nil
        let (metrics, publicURL) = (self.metrics, configuration.publicURL)
        self.middleware = SurfaceMiddleware(
            limiter: limiter, rejected: { metrics.rateLimited($0) },
            tooManyRequests: { _, _ in AgentResponse.error(.tooManyRequests, publicURL: publicURL) },
            failure: { error in
                // Handlers answer the surface's own errors themselves; what reaches here is unforeseen (storage,
                // signing) and goes through the shared ``ServiceFailure`` table.
                let failure = ServiceFailure(error)
                return (AgentResponse.error(AgentAuthError(failure), publicURL: publicURL), failure.shouldLog)
            },
            onUnexpectedError: onUnexpectedError)
    }

    /// The difficulty every challenge starts from (the value `/metrics` and `/llms.txt` show).
    public var currentBaseDifficulty: Int { policy.base }

    /// The accounts table, for operator commands (revoke, delete).
    public var accountStore: AgentAccountStore { accounts }

    /// Adds the surface's routes: `POST /api/v1/challenge` (immediate), `POST /api/v1/session` (deferred) and
    /// `POST /api/v1/capability`: short work run on the event loop on SQLite, whose reads the loop's thread makes on a
    /// connection of its own; completing on PostgreSQL (it hands its read and signature to the worker pool itself).
    public func register(into router: inout ContextRouter) {
        router.add(
            .POST, "/api/v1/challenge", bodyLimit: Self.emptyBodyLimit,
            .immediate { [self] _, context, _ in
                middleware.runNow(.challenge, context) { challenge(context) }
            })
        router.add(
            .POST, "/api/v1/session", bodyLimit: Self.sessionBodyLimit,
            .deferred { [self] request, context, _ in
                await middleware.run(.session, context) { await session(request, context) }
            })
        router.add(
            .POST, "/api/v1/capability", bodyLimit: Self.emptyBodyLimit,
            accounts.readsOnCallingThread
                ? .short { [self] request, context, _ in
                    middleware.runNow(.capability, context) { try capabilityNow(request, context) }
                }
                : .completing { [self] request, context, _, completion in
                    middleware.runCompleting(.capability, context, completion) { answer in
                        capability(request, context, answer: answer)
                    }
                })
    }

    /// The error response for `error`.
    func failure(_ error: AgentAuthError) -> HTTPResponse {
        AgentResponse.error(error, publicURL: configuration.publicURL)
    }

    /// The error response for an error the surface's rules did not foresee (storage, signing), through
    /// the shared ``ServiceFailure`` table; one it says to log is reported with the request id.
    func failure(unforeseen error: any Error, _ context: RequestContext) -> HTTPResponse {
        middleware.answer(error, context)
    }

    /// A random token id: 32 lowercase hex characters from 128 random bits.
    static func newTokenID() -> String {
        SecureRandom.identifier(byteCount: 16)
    }
}
