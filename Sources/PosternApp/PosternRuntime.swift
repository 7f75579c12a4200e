import Audit
import ClientAddress
import ComputePool
import Fetch
import Foundation
import HTTP1
import HTTPServer
import JSON
import JWT
import Logging
import MailDelivery
import MailSandbox
import MailStore
import OAuthGrants
import OAuthResource
import MailboxAccounts
import OAuthServer
import Owners
import PostgresClient
import DNS
import MailAuth
import SMTPServer
import ServerTLS
import ServerKit
import SigningKeys
import SocketServer
import Storage
import Synchronization
import Webhooks

/// One running Postern: the database, keys, worker pool, surfaces and the HTTP server, composed once.
/// `postern serve` and the end-to-end tests both build it through ``build(configuration:logger:clock:)``.
public final class PosternRuntime: Sendable {
    /// The configuration it was built from.
    public let configuration: PosternConfiguration
    /// The SQLite database (migrated).
    public let database: any SQLDatabase
    /// Every signing and verification key.
    public let keys: JWTKeySet
    /// The bounded pool for scrypt, Argon2 and RSA.
    public let pool: WorkerPool
    /// The outbound fetcher (remote hashes, webhooks), with its own I/O threads.
    private let fetcher: Fetcher
    /// Delivers the webhook queue from ``start()`` to ``shutdown()``.
    private let webhooks: WebhookDispatcher
    /// The base URL and issuer every surface prints and mints with, fixed when the socket was bound.
    public let identity: PublicIdentity
    /// This instance's cache of live OAuth grants: told of every revocation made here, and of every instance's
    /// through `postern_grants` on PostgreSQL.
    public let grantCache: OAuthGrantCache
    /// The listening socket, bound by `build` and served from `start()`.
    private let listener: ListeningSocket
    /// The event loops HTTP and SMTP share.
    private let group: EventLoopGroup
    private let server: HTTPServer
    /// The SMTP listener and its bound socket; nil when `POSTERN_SMTP` is off.
    private let smtp: (server: SMTPServer, listener: ListeningSocket)?
    /// The SMTP sandbox's submission listener; nil when `POSTERN_SANDBOX_SMTP_PORT` is 0.
    private let sandbox: (server: SMTPServer, listener: ListeningSocket)?
    /// The `/metrics` listener and its bound socket; nil unless `POSTERN_METRICS_LISTEN` is set.
    private let metricsServer: (server: HTTPServer, listener: ListeningSocket)?
    private let ledger: ChallengeLedger
    /// Whose uploaded blobs expire on a schedule of their own.
    private let mailStore: MailStore
    private let keyStore: any SigningKeyStore
    /// Set by ``beginDraining()``: `/readyz` fails from then on.
    private let drainFlag: DrainFlag
    private let keyReload = Mutex<Task<Void, Never>?>(nil)
    /// Hear other instances' key rotations and mail changes (PostgreSQL's `LISTEN postern_keys` and
    /// `LISTEN postern_mail`) while serving.
    private let listeners = Mutex<[PostgresListener]>([])
    /// The periodic purges: consumed challenges and expired blobs.
    private let purges = Mutex<[PurgeSchedule]>([])
    private let clock: @Sendable () -> Int64
    private let logger: Logger

    private init(
        configuration: PosternConfiguration, database: any SQLDatabase, keys: JWTKeySet, pool: WorkerPool,
        fetcher: Fetcher, webhooks: WebhookDispatcher,
        identity: PublicIdentity, listener: ListeningSocket, group: EventLoopGroup, server: HTTPServer,
        smtp: (server: SMTPServer, listener: ListeningSocket)?, sandbox: (server: SMTPServer, listener: ListeningSocket)?,
        metricsServer: (server: HTTPServer, listener: ListeningSocket)?,
        ledger: ChallengeLedger, mailStore: MailStore, keyStore: any SigningKeyStore, drainFlag: DrainFlag,
        grantCache: OAuthGrantCache, clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.grantCache = grantCache
        self.drainFlag = drainFlag
        self.group = group
        self.smtp = smtp
        self.sandbox = sandbox
        self.metricsServer = metricsServer
        self.keyStore = keyStore
        self.configuration = configuration
        self.database = database
        self.keys = keys
        self.pool = pool
        self.fetcher = fetcher
        self.webhooks = webhooks
        self.identity = identity
        self.listener = listener
        self.server = server
        self.ledger = ledger
        self.mailStore = mailStore
        self.clock = clock
        self.logger = logger
    }

    /// Binds the listening socket, opens the data directory, applies pending migrations, loads or generates
    /// keys and wires every route.
    ///
    /// The socket is bound first, so that the public URL and issuer can name the real port (with port 0
    /// too) before the surfaces are built; connections wait in the backlog until ``start()``.
    /// - Parameters:
    ///   - configuration: a validated configuration.
    ///   - logger: the root logger; components log below it.
    ///   - clock: Unix seconds now; injected so tests can move time.
    /// - Throws: ``ListenError`` naming the address when it cannot be bound; configuration, storage,
    ///   migration or key errors. Nothing is served on failure, and the socket is closed.
    ///   - accessLog: where the access log goes when `logger` logs at `info` or below; standard error
    ///     by default. Injected so tests can read it.
    public static func build(
        configuration: PosternConfiguration, logger: Logger,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        accessLog: any LineSink = FileDescriptorSink()
    ) async throws -> PosternRuntime {
        try configuration.validate()
        let smtpTLS = try SMTPCertificate.configured(configuration)
        let listener = try ListenError.bind(host: configuration.host, port: configuration.port)
        let identity = configuration.publicIdentity(listeningOn: listener.host, port: listener.port)
        // SMTP is bound as early, so that a clash stops the start, named, and the guide can print its real port.
        let smtpListener =
            try configuration.smtpEnabled
            ? ListenError.bind(host: configuration.smtpHost ?? configuration.host, port: configuration.smtpPort) : nil
        // POSTERN_SMTP=off turns every SMTP listener off, the sandbox's too (as cluster instances run).
        let sandboxListener = try (configuration.smtpEnabled ? configuration.sandboxSMTPPort : nil).map {
            try ListenError.bind(host: configuration.smtpHost ?? configuration.host, port: $0)
        }
        // The metrics listener too (POSTERN_METRICS_LISTEN): /metrics then leaves the main port.
        let metricsListener = try configuration.metricsListenAddress.map {
            try ListenError.bind(host: $0.host, port: $0.port)
        }
        let (database, applied) = try DatabaseOpener.migrated(configuration, readers: 2, logger: logger)
        if !applied.isEmpty { logger.notice("applied migrations", metadata: ["migrations": "\(applied)"]) }
        let keyStore: any SigningKeyStore
        do {
            keyStore = try SigningKeyStores.open(configuration: configuration, database: database, clock: clock)
        } catch {
            database.close()
            throw error
        }
        try KeyRingCheck.warnIfNew(keyStore, database: database, logger: logger)
        let keys = keyStore.keySet()
        let pool = WorkerPool()
        let fetcher = try Surfaces.fetcher(configuration, identity: identity)
        let ledger = ChallengeLedger(database: database)
        let metrics = PosternMetrics.shared

        let connections = ConnectionCountBox()
        let drainFlag = DrainFlag()
        var router = ContextRouter()
        let mail = Surfaces.localMail(configuration, database: database, clock: clock)
        let changes = mail.store.changes
        let metricsEndpoint = MetricsEndpoint(
            metrics: metrics, database: database, token: configuration.metricsToken,
            openConnections: { connections.count() }, mailWaiters: { changes.waitingTotal })
        CommonRoutes.register(
            into: &router, database: database, metrics: metricsListener == nil ? metricsEndpoint : nil, keys: keys,
            openAPI: try OpenAPIDocument.serving(
                baseURL: identity.baseURL,
                mailboxDomains: configuration.mailbox.domains + configuration.mailbox.proDomains),
            clock: clock, draining: { drainFlag.isSet })
        let grantCache = OAuthGrantCache()
        let (unmatched, mailSandbox) = try Surfaces.register(
            into: &router, configuration: configuration, identity: identity, keys: keys, database: database,
            ledger: ledger, pool: pool, fetcher: fetcher, mail: mail,
            smtpAddress: smtpListener.map { PublicIdentity.authority(host: $0.host, port: $0.port) },
            sandboxPort: sandboxListener?.port, grantCache: grantCache, clock: clock, logger: logger)

        let responder = PosternResponder(
            router: router, unmatched: unmatched,
            trustedProxies: ClientAddressResolver(trustedProxies: configuration.trustedProxies), metrics: metrics,
            logger: logger)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = configuration.port
        serverConfiguration.maxConnections = configuration.maxConnections
        serverConfiguration.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        if let loops = configuration.eventLoops { serverConfiguration.eventQueueCount = loops }
        // One line per request at `info`, as the log level promises; none at `notice` and above.
        serverConfiguration.accessLog = logger.logLevel <= .info ? accessLog : nil
        serverConfiguration.accessLogLabel = logger.label
        let group = try EventLoopGroup(
            count: serverConfiguration.eventQueueCount, clock: serverConfiguration.clock,
            pollInterval: serverConfiguration.pollInterval, lineSink: serverConfiguration.accessLog)
        let server = HTTPServer(configuration: serverConfiguration, responder: responder, group: group, logger: logger)
        connections.attach(server)
        let smtp = smtpListener.map {
            (smtpServer(configuration, delivery: mail.delivery, tls: smtpTLS, group: group, logger: logger), $0)
        }
        let sandbox = try sandboxListener.map {
            (
                try sandboxServer(configuration, sandbox: mailSandbox, group: group, logger: logger), $0
            )
        }
        let metricsServer = metricsListener.map {
            (makeMetricsServer(metricsEndpoint, configuration, group: group, logger: logger), $0)
        }
        let webhooks = Surfaces.webhookDispatcher(
            configuration, database: database, fetcher: fetcher, changes: changes, logger: logger)
        return PosternRuntime(
            configuration: configuration, database: database, keys: keys, pool: pool, fetcher: fetcher,
            webhooks: webhooks,
            identity: identity, listener: listener, group: group, server: server, smtp: smtp, sandbox: sandbox,
            metricsServer: metricsServer, ledger: ledger,
            mailStore: mail.store, keyStore: keyStore, drainFlag: drainFlag, grantCache: grantCache, clock: clock,
            logger: logger)
    }

    /// What both SMTP listeners share: the address, the greeting's hostname and the limits.
    private static func smtpSettings(_ configuration: PosternConfiguration, port: Int) -> SMTPServerConfiguration {
        var settings = SMTPServerConfiguration(
            host: configuration.smtpHost ?? configuration.host, port: port, hostname: configuration.smtpHostname)
        settings.maxMessageBytes = configuration.smtpMaxMessageBytes
        settings.maxConnectionsPerClient = configuration.smtpMaxConnectionsPerClient
        if configuration.smtpProxyProtocol {
            settings.proxyProtocolPeers = configuration.trustedProxies.compactMap(IPNetwork.init)
        }
        settings.maxSessionDuration = .seconds(configuration.smtpMaxSessionSeconds)
        return settings
    }

    /// The `/metrics` listener (`POSTERN_METRICS_LISTEN`): the HTTP server on the same loops with one route; anything
    /// else is 404.
    private static func makeMetricsServer(
        _ endpoint: MetricsEndpoint, _ configuration: PosternConfiguration, group: EventLoopGroup, logger: Logger
    ) -> HTTPServer {
        var router = ContextRouter()
        endpoint.register(into: &router)
        let responder = PosternResponder(
            router: router, unmatched: [],
            trustedProxies: ClientAddressResolver(trustedProxies: configuration.trustedProxies),
            metrics: endpoint.metrics, logger: logger)
        var settings = HTTPServerConfiguration()
        settings.maxConnections = 64  // scrapers, not clients
        settings.maxConnectionsPerClient = 0
        return HTTPServer(configuration: settings, responder: responder, group: group, logger: logger)
    }

    /// The SMTP server, on the loops HTTP uses.
    private static func smtpServer(
        _ configuration: PosternConfiguration, delivery: LocalDelivery, tls: TLSServerContext?, group: EventLoopGroup,
        logger: Logger
    ) -> SMTPServer {
        var settings = smtpSettings(configuration, port: configuration.smtpPort)
        settings.tls = tls
        return SMTPServer(
            configuration: settings, sink: SMTPDeliverySink(delivery: delivery), group: group, logger: logger,
            observer: SMTPTransactionLog.observer("smtp", metrics: PosternMetrics.shared, logger: logger))
    }

    /// The SMTP sandbox: a submission listener with STARTTLS (the operator's certificate or a self-signed one) that
    /// takes a Pro API token as the AUTH password and captures every message into that user's sandbox.
    private static func sandboxServer(
        _ configuration: PosternConfiguration, sandbox: MailSandbox, group: EventLoopGroup, logger: Logger
    ) throws -> SMTPServer {
        var settings = smtpSettings(configuration, port: configuration.sandboxSMTPPort ?? 0)
        settings.tls = try SMTPCertificate.configuredOrSelfSigned(configuration, logger: logger)
        settings.requiresAuthentication = true
        settings.plaintextAuthentication = configuration.sandboxPlaintextAuthOnLoopback ? .loopbackOnly : .never
        // POSTERN_SANDBOX_MAIL_AUTH=off (the test profile): no DNS lookups at all.
        let authenticator = configuration.sandboxMailAuth ? MailAuthenticator(
            dns: ResolverMailAuthDNS(
                resolver: DNSResolver(server: configuration.dnsResolver.flatMap(DNSServerAddress.init) ?? .system))
        ) { Int64(Date().timeIntervalSince1970) } : nil
        return SMTPServer(
            configuration: settings,
            sink: SandboxDeliverySink(sandbox: sandbox, authenticator: authenticator, logger: logger), group: group,
            logger: logger, observer: SMTPTransactionLog.observer("sandbox", metrics: nil, logger: logger))
    }

    /// What `serve` bound, as its JSON line (newline included): `{"http":"http://HOST:PORT","smtp":"HOST:PORT",
    /// "sandbox":"HOST:PORT","data_dir":"/absolute/path"}`, `null` for a listener that is off.
    public var boundAddressesLine: [UInt8] {
        var directory = configuration.dataDirectory
        if !directory.hasPrefix("/") { directory = FileManager.default.currentDirectoryPath + "/" + directory }
        return JSONValue.object([
            ("http", .string("http://\(listenAddress)")), ("smtp", smtpListenAddress.map(JSONValue.string) ?? .null),
            ("sandbox", sandboxListenAddress.map(JSONValue.string) ?? .null), ("data_dir", .string(directory)),
        ]).serialize() + [0x0a]
    }

    /// The SMTP sandbox listener's address as `host:port`; nil when it is off.
    public var sandboxListenAddress: String? {
        sandbox.map { PublicIdentity.authority(host: $0.listener.host, port: $0.listener.port) }
    }

    /// The bound address as `host:port` (`127.0.0.1:8080`, `[::1]:41234`), the real port included.
    public var listenAddress: String { PublicIdentity.authority(host: listener.host, port: listener.port) }
    /// How many event loops serve HTTP and SMTP.
    public var eventLoopCount: Int { group.loops.count }

    /// The `/metrics` listener's address as `host:port` (the real port with port 0); nil unless
    /// `POSTERN_METRICS_LISTEN` is set.
    public var metricsListenAddress: String? {
        metricsServer.map { PublicIdentity.authority(host: $0.listener.host, port: $0.listener.port) }
    }

    /// The SMTP listener's address as `host:port` (the real port with port 0); nil when SMTP is off.
    public var smtpListenAddress: String? {
        smtp.map { PublicIdentity.authority(host: $0.listener.host, port: $0.listener.port) }
    }

    /// Makes `/readyz` answer 503 `{"status":"draining"}` from now on while everything else keeps serving, so
    /// that a balancer health-checking it stops sending requests before ``shutdown()`` closes connections
    /// (`postern serve` does this for `POSTERN_DRAIN_SECONDS` after SIGTERM).
    public func beginDraining() {
        drainFlag.set()
    }

    /// Writes the access-log lines every loop has gathered, now (SIGUSR1: before a log rotation, say).
    public func flushAccessLog() {
        for loop in group.loops { loop.flushGatheredLines() }
    }

    /// Starts serving on the sockets bound by `build`; returns the HTTP port (the real one with port 0).
    public func start() throws -> Int {
        group.startOnce()
        let port = try server.start(on: listener)
        if let smtp { try smtp.server.start(on: smtp.listener) }
        if let sandbox { try sandbox.server.start(on: sandbox.listener) }
        if let metricsServer { _ = try metricsServer.server.start(on: metricsServer.listener) }
        let schedules = [
            ledger.startPurging(every: .seconds(60), now: clock),
            mailStore.startExpiringBlobs(every: .seconds(60), now: clock),
            mailStore.startTrimmingChanges(every: .seconds(60), keep: configuration.mailChangesKept),
            PurgeSchedule.start(every: .seconds(60), on: database, purging: "owner sessions and sign-in failures") {
                [clock] in try OwnerPurge.run($0, now: clock())
            },
            PurgeSchedule.start(every: .seconds(60), on: database, purging: "OAuth codes, tokens and unused clients") {
                [clock] in try OAuthPurge.run($0, now: clock())
            },
            PurgeSchedule.start(every: .seconds(600), on: database, purging: "audit events past POSTERN_AUDIT_DAYS") {
                [clock, days = configuration.auditDays] in
                try SQLAuditLog.purgeExpired($0, now: clock(), days: days)
            },
        ]
        purges.withLock { $0 = schedules }
        webhooks.start()
        let interval = configuration.keyReloadSeconds
        if case .postgres(let url) = try configuration.database() {
            let store = keyStore
            let listener = PostgresListener(
                url: url, channel: DatabaseKeyStore.notificationChannel, logger: logger
            ) { [weak store] in store?.reloadSoon() }
            let changes = mailStore.changes
            let mailListener = PostgresListener(
                url: url, channel: MailStore.notificationChannel, logger: logger
            ) { addresses in
                if let addresses { changes.announce(addresses) } else { changes.announceEverywhere() }
            }
            let grants = grantCache
            let grantListener = PostgresListener(
                url: url, channel: OAuthGrantCache.notificationChannel, logger: logger
            ) { grantIDs in
                if let grantIDs { for id in grantIDs { grants.invalidate(grantID: id) } } else { grants.invalidateAll() }
            }
            listeners.withLock { $0 = [listener, mailListener, grantListener] }
        }
        keyReload.withLock { task in
            task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    // Off Swift's cooperative pool, which the deferred handlers need: a reload reads files or waits
                    // on the database (up to its 5 s connect timeout while PostgreSQL is down).
                    guard !Task.isCancelled, let runtime = self else { return }
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        DispatchQueue.global().async {
                            runtime.reloadKeys()
                            done.resume()
                        }
                    }
                }
            }
        }
        return port
    }

    /// Stops everything ``start()`` started and closes what ``build(configuration:logger:clock:)`` opened:
    /// stops accepting, finishes requests in flight and closes idle connections (the event-loop threads
    /// are joined), stops the purge and the key reload, finishes the queued pool and fetch jobs and joins
    /// their threads, then closes the database. Afterwards no thread of this runtime runs, so the process
    /// can exit normally. Calling it again does nothing more.
    public func shutdown() async {
        await server.shutdown()
        await smtp?.server.shutdown()
        await sandbox?.server.shutdown()
        await metricsServer?.server.shutdown()
        await group.shutdownJoining()
        await webhooks.stop()
        purges.withLock {
            for schedule in $0 { schedule.cancel() }
            $0 = []
        }
        // A purge already running finishes first: `close` waits on the writer queue it runs on.
        let reload = keyReload.withLock { task in
            defer { task = nil }
            task?.cancel()
            return task
        }
        await reload?.value
        listeners.withLock {
            for listener in $0 { listener.stop() }
            $0 = []
        }
        keyStore.finishReloads()
        pool.shutdown()
        fetcher.shutdown()
        database.close()
    }

    /// Picks up keys rotated by `postern keys rotate` (or by another instance), lets published keys sign when
    /// their time has come, and drops keys past their retention; every surface
    /// and the JWKS see the change at once (they share the key set). Runs every `POSTERN_KEY_RELOAD_SECONDS`.
    func reloadKeys() {
        do {
            try keyStore.reload(now: clock())
        } catch {
            logger.error("reloading keys failed; serving with the keys loaded before", metadata: ["error": "\(error)"])
        }
    }
}
