import Audit
import BufferBudget
import ClientAddress
import ComputePool
import CustomDomains
import DKIMKeys
import EmailAddresses
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
import WebSocketServer
import SigningKeys
import SocketServer
import Storage
import ServiceLifecycle
import Webhooks
import ServerMetrics

/// One running Postern: the database, keys, thread pools, surfaces and listeners, composed once, and the services that
/// run them under one `ServiceGroup`.
///
/// ``build(configuration:logger:clock:accessLog:services:)`` binds the sockets, opens the database and wires every
/// route; ``run()`` runs the services until ``triggerGracefulShutdown()`` (what SIGTERM and SIGINT do in
/// `postern serve`), then stops them one at a time in the reverse of ``serviceNames``: `/readyz` drains, the
/// listeners stop accepting and finish what is in flight, the loops stop, the webhooks, purges, PostgreSQL listeners
/// and key reload stop, the worker, fetch and DNS threads are joined, and the database closes last. When ``run()``
/// has returned no thread of this runtime runs, so the process can exit normally.
///
/// Nothing here is process-wide: the change stream, the grant cache and the thread pools are made by `build` and
/// handed to whoever needs them, so two runtimes in one process (the tests, a cluster of instances) share nothing.
public final class PosternRuntime: Service {
    /// The configuration it was built from.
    public let configuration: PosternConfiguration
    /// The database (migrated).
    public let database: any SQLDatabase
    /// Every signing and verification key.
    public let keys: JWTKeySet
    /// The DKIM keys outbound mail is signed with, per domain; the agent inbox domain's are made by `build` when it
    /// has none, a custom domain's when it is added.
    public let dkimKeys: DKIMKeyStore
    /// The bounded pool for scrypt, Argon2 and RSA.
    public let pool: WorkerPool
    /// The threads DNS lookups block on (domain verification, the sandbox's mail authentication).
    let dnsThreads: WorkerPool
    /// The base URL and issuer every surface prints and mints with, fixed when the socket was bound.
    public let identity: PublicIdentity
    /// The wall clock every part of this runtime reads.
    public let clock: WallClock
    /// Who waits for mail to change (JMAP push, long polls, the webhook dispatcher): every mail store of this runtime
    /// announces through it, and on PostgreSQL so do other instances, through `postern_mail`.
    public let mailChanges: MailChanges
    /// The live OAuth grants this instance has seen, dropped by revocations here and, on PostgreSQL, elsewhere.
    public let grantCache: OAuthGrantCache
    /// The services ``run()`` runs, in start order; they stop in reverse.
    public var serviceNames: [String] { services.map(\.name) }

    private let services: [RuntimeService]
    private let serviceGroup: ServiceGroup
    /// The listening socket, bound by `build` and served from `run()`.
    private let listener: ListeningSocket
    /// The event loops HTTP and SMTP share.
    private let group: EventLoopGroup
    /// The other listeners' sockets (SMTP, the sandbox, IMAP, IMAPS, POP3, `/metrics`), bound by `build`; a listener
    /// that is off, or that the runtime does not run, has none.
    private let sockets: ListenerSockets
    /// Set by ``beginDraining()``: `/readyz` fails from then on.
    private let drainFlag: DrainFlag
    private let keyStore: any SigningKeyStore
    private let logger: Logger

    private init(
        configuration: PosternConfiguration, database: any SQLDatabase, keys: JWTKeySet, dkimKeys: DKIMKeyStore,
        pool: WorkerPool,
        dnsThreads: WorkerPool, identity: PublicIdentity, clock: WallClock, mailChanges: MailChanges,
        grantCache: OAuthGrantCache,
        services: [RuntimeService], listener: ListeningSocket, group: EventLoopGroup, sockets: ListenerSockets,
        drainFlag: DrainFlag, keyStore: any SigningKeyStore, logger: Logger
    ) {
        self.keyStore = keyStore
        self.logger = logger
        self.configuration = configuration
        self.database = database
        self.keys = keys
        self.dkimKeys = dkimKeys
        self.pool = pool
        self.dnsThreads = dnsThreads
        self.identity = identity
        self.clock = clock
        self.mailChanges = mailChanges
        self.grantCache = grantCache
        let services = services.map { $0.logging(to: logger) }
        self.services = services
        self.listener = listener
        self.group = group
        self.sockets = sockets
        self.drainFlag = drainFlag
        // A service that fails (a listener that cannot serve) stops the others in order too, so that the database
        // never closes under a listener still answering; `run()` then throws its error.
        serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map {
                    .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: $0.name)
                },
                logger: logger))
    }

    /// Binds the listening sockets, opens the data directory, applies pending migrations, loads or generates
    /// keys (the token signing keys, and the agent inbox domain's DKIM keys), wires every route and makes the services
    /// of `services`.
    ///
    /// The sockets are bound first, so that the public URL and issuer can name the real port (with port 0
    /// too) before the surfaces are built; connections wait in the backlog until ``run()`` serves them.
    /// - Parameters:
    ///   - configuration: a validated configuration.
    ///   - logger: the root logger; components log below it.
    ///   - clock: the wall clock; injected so tests can move time.
    ///   - accessLog: where the access log goes when `logger` logs at `info` or below; standard error
    ///     by default. Injected so tests can read it.
    ///   - services: which services ``run()`` runs; `postern serve` runs them all.
    ///   - metrics: the registry `/metrics` shows; the process's, which swift-metrics is bootstrapped over, by default.
    /// - Throws: ``ListenError`` naming the address when it cannot be bound; configuration, storage,
    ///   migration or key errors. Nothing is served on failure, and the sockets are closed.
    public static func build(
        configuration: PosternConfiguration, logger: Logger, clock: WallClock = .system,
        accessLog: any LineSink = FileDescriptorSink(), services wanted: PosternServiceSet = .all,
        metrics: PosternMetrics = .shared
    ) async throws -> PosternRuntime {
        try configuration.validate()
        let now = clock.secondsReader
        let smtpTLS = try configuration.smtp.operatorCertificate()
        let listener = try ListenError.bind(host: configuration.listener.host, port: configuration.listener.port)
        let identity = configuration.identity.publicIdentity(listeningOn: listener.host, port: listener.port)
        // The other listeners are bound as early, so that a clash stops the start, named, and the guide can print their
        // real ports. POSTERN_SMTP=off turns every SMTP listener off, the sandbox's too (as cluster instances run);
        // POSTERN_METRICS_LISTEN moves /metrics off the main port.
        var sockets = ListenerSockets()
        let smtpOn = configuration.smtp.enabled
        let smtpHost = configuration.smtp.host ?? configuration.listener.host
        try sockets.bind(.smtp, host: smtpHost, port: smtpOn && wanted.contains(.smtp) ? configuration.smtp.port : nil)
        try sockets.bind(
            .sandbox, host: smtpHost, port: smtpOn && wanted.contains(.sandbox) ? configuration.sandbox.smtpPort : nil)
        let metricsAddress = wanted.contains(.metrics) ? configuration.observability.metricsListenAddress : nil
        try sockets.bind(.metrics, host: metricsAddress?.host ?? "", port: metricsAddress?.port)
        let mailDoors: [(MailListenerConfiguration, PosternServiceSet, ListenerSockets.Name, ListenerSockets.Name)] = [
            (configuration.imap.listener, .imap, .imap, .imaps), (configuration.pop3.listener, .pop3, .pop3, .pop3s),
            (configuration.submission.listener, .submission, .submission, .submissions),
        ]
        for (listener, service, plain, implicitTLS) in mailDoors {
            let on = listener.enabled && wanted.contains(service)
            let host = listener.host ?? configuration.listener.host
            try sockets.bind(plain, host: host, port: on ? listener.port : nil)
            try sockets.bind(implicitTLS, host: host, port: on ? listener.implicitTLSPort : nil)
        }
        let (database, applied) = try DatabaseOpener.migrated(
            configuration, readers: 2, logger: logger, clock: clock)
        if !applied.isEmpty { logger.notice("applied migrations", metadata: ["migrations": "\(applied)"]) }
        StartupWarning.log(configuration, logger: logger)
        let keyStore: any SigningKeyStore
        // One sealing key (scrypt, about 32 MiB and a tenth of a second) for the signing and the DKIM keys.
        let sealer: KeySealer?
        do {
            sealer = try SigningKeyStores.sealer(configuration: configuration, database: database)
            keyStore = try SigningKeyStores.open(
                configuration: configuration, database: database, sealer: sealer, clock: now)
        } catch {
            database.close()
            throw error
        }
        try KeyRingCheck.warnIfNew(keyStore, database: database, logger: logger)
        let keys = keyStore.keySet()
        let dkimKeys: DKIMKeyStore
        do {
            dkimKeys = try agentDomainDKIMKeys(
                configuration, database: database, sealer: sealer, clock: now, logger: logger)
        } catch {
            database.close()
            throw error
        }
        // The thread pools, the change stream and the grant cache: made here, once, and handed down.
        let pool = WorkerPool()
        let dnsThreads = DNSResolver.threadPool()
        // One DNS resolver and one custom-domain model, for every surface, the sandbox and the outbound path.
        let resolver = Surfaces.resolver(configuration, threads: dnsThreads)
        let domains = Surfaces.customDomains(
            database: database, signingKeys: DKIMDomainKeys(store: dkimKeys, pool: pool))
        let fetcher = try Surfaces.fetcher(configuration, resolver: resolver)
        let changes = MailChanges()
        let grants = OAuthGrantCache()
        let ledger = ChallengeLedger(database: database)

        let connections = ConnectionCountBox()
        let drainFlag = DrainFlag()
        var router = ContextRouter()
        let mail = Surfaces.localMail(
            configuration, database: database, changes: changes, domains: domains, clock: now)
        let metricsEndpoint = MetricsEndpoint(
            metrics: metrics, database: database, outbound: mail.outbound,
            token: configuration.observability.metricsToken, clock: now, openConnections: { connections.count() },
            mailWaiters: { changes.waitingTotal })
        // With POSTERN_METRICS_LISTEN set, /metrics is never on the main port, even in a runtime that runs no metrics
        // listener.
        CommonRoutes.register(
            into: &router, database: database,
            metrics: configuration.observability.metricsListenAddress == nil ? metricsEndpoint : nil, keys: keys,
            openAPI: try OpenAPIDocument.serving(
                baseURL: identity.baseURL,
                mailboxDomains: configuration.mailbox.domains + configuration.mailbox.proDomains,
                mailpitPath: configuration.mailpit.basePath, mailosaurPath: configuration.mailosaur.basePath),
            clock: now, draining: { drainFlag.isSet })
        // SMTP failure injection (issue 71): one rule book, set through the APIs and asked by both listeners.
        let chaos = configuration.smtp.chaos ? SMTPChaos(onInjection: metrics.chaosInjected) : nil
        let surfaceContext = SurfaceContext(
            configuration: configuration, identity: identity, keys: keys, database: database, ledger: ledger,
            pool: pool, resolver: resolver, fetcher: fetcher, mail: mail, grantCache: grants,
            smtpAddress: sockets.address(.smtp), sandboxPort: sockets[.sandbox]?.port,
            mailClientServers: MailClientSetupSurface.servers(sockets, identity: identity), chaos: chaos,
            sealer: sealer, metrics: metrics, clock: now, logger: logger)
        // Mail.td's accounts and the one owner of mail credentials: every HTTP door and the mail listeners share them.
        let mailAccess = MailAccess(
            surfaceContext, audit: Surfaces.auditTrail(database: database, clock: now, logger: logger))
        let (unmatched, mailSandbox) = try Surfaces.register(into: &router, surfaceContext, access: mailAccess)

        let responder = PosternResponder(
            router: router, unmatched: unmatched,
            trustedProxies: ClientAddressResolver(trustedProxies: configuration.listener.trustedProxies),
            metrics: metrics,
            webSockets: WebSocketUpgrader(
                configuration: configuration.webSocket, publicOrigin: WebOrigin(identity.baseURL)),
            logger: logger)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.host = configuration.listener.host
        serverConfiguration.port = configuration.listener.port
        serverConfiguration.maxConnections = configuration.listener.maxConnections
        serverConfiguration.maxConnectionsPerClient = configuration.listener.maxConnectionsPerClient
        if let loops = configuration.listener.eventLoops { serverConfiguration.eventQueueCount = loops }
        // One line per request at `info`, as the log level promises; none at `notice` and above.
        serverConfiguration.accessLog = logger.logLevel <= .info ? accessLog : nil
        serverConfiguration.accessLogLabel = logger.label
        serverConfiguration.wallClock = { Int(clock.seconds) }
        let group = try EventLoopGroup(
            count: serverConfiguration.eventQueueCount, clock: serverConfiguration.clock,
            pollInterval: serverConfiguration.pollInterval, lineSink: serverConfiguration.accessLog)
        let server = HTTPServer(configuration: serverConfiguration, responder: responder, group: group, logger: logger)
        connections.attach(server)

        // In start order; the group stops them in reverse, each once the one after it has stopped.
        var services: [RuntimeService] = [
            .database(database),
            .threads(pool: pool, fetcher: fetcher, dns: dnsThreads),
        ]
        if wanted.contains(.keyReload) {
            services.append(
                .keyReload(
                    keyStore, every: .seconds(configuration.signingKeys.reloadSeconds), clock: now, logger: logger))
        }
        if wanted.contains(.databaseListeners), case .postgres = try configuration.storage.database() {
            services += RuntimeService.databaseListeners(
                database, keyStore: keyStore, mail: mail.store, grants: grants, logger: logger)
        }
        if wanted.contains(.purges) {
            services.append(
                .purges(
                    database: database, ledger: ledger, mailStore: mail.store,
                    changesKept: configuration.storage.mailChangesKept, auditDays: configuration.storage.auditDays,
                    servedDomains: Set(
                        ([configuration.agent.inboxDomain] + configuration.mailbox.domains
                            + configuration.mailbox.proDomains).map { EmailDomain.key($0) }),
                    clock: now))
            if !configuration.mailCX.domains.isEmpty {
                services.append(
                    TempMailSurface.retention(configuration, mail: mail.store, metrics: metrics, clock: now, logger: logger))
            }
        }
        if wanted.contains(.purges), !configuration.retention.retention.isUnlimited {
            services.append(
                .retention(configuration.retention.retention, mailStore: mail.store, metrics: metrics, clock: now, logger: logger))
        }
        let outbound =
            wanted.contains(.outbound)
            ? try Surfaces.outboundRuntime(
                configuration, dkimKeys: dkimKeys, secureDomains: mail.outbound, resolver: resolver, now: now,
                logger: logger) : nil
        if let outbound {
            // Joined after the dispatcher, listed below, has stopped.
            services.append(.outboundThreads(outbound.threads, fetcher: outbound.policyFetcher))
        }
        if wanted.contains(.webhooks) {
            services.append(
                .webhooks(
                    Surfaces.webhookDispatcher(
                        configuration, database: database, fetcher: fetcher, changes: changes,
                        clock: clock.millisecondsReader, logger: logger)))
        }
        if let outbound {
            services.append(
                .outbound(
                    Surfaces.outboundDispatcher(
                        configuration, mail: mail, database: database, transport: outbound.transport,
                        metrics: metrics, clock: now, logger: logger)))
        }
        services.append(.eventLoops(group))
        if let socket = sockets[.metrics] {
            let server = makeMetricsServer(
                metricsEndpoint, configuration, wallClock: serverConfiguration.wallClock, group: group, logger: logger)
            services.append(.listening("metrics listener", server, on: socket, group: group))
        }
        // The sandbox, IMAP, POP3 and submission present SMTP's certificate (the operator's, else the data directory's
        // self-signed pair), read once for all of them.
        // What every mail listener's sessions hold for clients' messages before they are stored, together.
        let buffers = BufferBudget(capacity: configuration.smtp.bufferBytes)
        let mailTLS =
            try [.sandbox, .imap, .pop3, .submission].contains { sockets[$0] != nil }
            ? SMTPCertificate.configuredOrSelfSigned(configuration, logger: logger) : nil
        if let socket = sockets[.sandbox], let mailTLS {
            let server = sandboxServer(
                configuration, sandbox: mailSandbox, tls: mailTLS, resolver: resolver, chaos: chaos, clock: now,
                buffers: buffers, group: group, logger: logger)
            services.append(.listening("SMTP sandbox", server, on: socket, group: group))
        }
        if let socket = sockets[.smtp] {
            let server = smtpServer(
                configuration, delivery: mail.delivery, tls: smtpTLS, chaos: chaos, metrics: metrics, clock: now,
                buffers: buffers, group: group, logger: logger)
            services.append(.listening("SMTP", server, on: socket, group: group))
        }
        if let mailTLS {
            services += try mailListeners(
                configuration, sockets: sockets, tls: mailTLS, context: surfaceContext, signIn: mailAccess.signIn,
                buffers: buffers,
                draining: drainFlag, group: group)
            services += submissionListeners(
                configuration, sockets: sockets, tls: mailTLS, context: surfaceContext, signIn: mailAccess.signIn,
                buffers: buffers, draining: drainFlag, group: group)
        }
        if wanted.contains(.http) {
            services.append(.listening("HTTP", on: listener, group: group) {
                _ = try server.start(on: $0)
            } stop: {
                logger.notice("shutting down: finishing requests in flight")
                await server.shutdown()
            })
            services.append(.readiness(drainFlag, seconds: configuration.listener.drainSeconds, logger: logger))
        }
        return PosternRuntime(
            configuration: configuration, database: database, keys: keys, dkimKeys: dkimKeys, pool: pool,
            dnsThreads: dnsThreads,
            identity: identity,
            clock: clock, mailChanges: changes, grantCache: grants, services: services, listener: listener,
            group: group, sockets: sockets, drainFlag: drainFlag, keyStore: keyStore, logger: logger)
    }

    /// What the SMTP listeners share: the address, the greeting's hostname and the limits.
    static func smtpSettings(
        _ configuration: PosternConfiguration, port: Int, clock: @escaping @Sendable () -> Int64,
        buffers: BufferBudget
    ) -> SMTPServerConfiguration {
        var settings = configuration.smtp.serverConfiguration(
            port: port, listenerHost: configuration.listener.host, trustedProxies: configuration.listener.trustedProxies)
        settings.wallClock = clock
        settings.buffers = buffers
        return settings
    }

    /// The `/metrics` listener (`POSTERN_METRICS_LISTEN`): the HTTP server on the same loops with one route; anything
    /// else is 404.
    private static func makeMetricsServer(
        _ endpoint: MetricsEndpoint, _ configuration: PosternConfiguration, wallClock: @escaping @Sendable () -> Int,
        group: EventLoopGroup, logger: Logger
    ) -> HTTPServer {
        var router = ContextRouter()
        endpoint.register(into: &router)
        let responder = PosternResponder(
            router: router, unmatched: [],
            trustedProxies: ClientAddressResolver(trustedProxies: configuration.listener.trustedProxies),
            metrics: endpoint.metrics,
            webSockets: WebSocketUpgrader(configuration: configuration.webSocket, publicOrigin: nil), logger: logger)
        var settings = HTTPServerConfiguration()
        settings.maxConnections = 64  // scrapers, not clients
        settings.maxConnectionsPerClient = 0
        settings.wallClock = wallClock
        return HTTPServer(configuration: settings, responder: responder, group: group, logger: logger)
    }

    /// The SMTP server, on the loops HTTP uses.
    private static func smtpServer(
        _ configuration: PosternConfiguration, delivery: LocalDelivery, tls: TLSServerContext?, chaos: SMTPChaos?,
        metrics: PosternMetrics, clock: @escaping @Sendable () -> Int64, buffers: BufferBudget, group: EventLoopGroup,
        logger: Logger
    ) -> SMTPServer {
        var settings = smtpSettings(configuration, port: configuration.smtp.port ?? 0, clock: clock, buffers: buffers)
        settings.tls = tls
        settings.chaos = chaos.map { SMTPChaosTarget($0, scoping: .server) }
        return SMTPServer(
            configuration: settings, sink: SMTPDeliverySink(delivery: delivery), group: group, logger: logger,
            observer: SMTPTransactionLog.observer("smtp", metrics: metrics, logger: logger))
    }

    /// The SMTP sandbox: a submission listener with STARTTLS (the operator's certificate or a self-signed one) that
    /// takes a Pro API token as the AUTH password and captures every message into that user's sandbox.
    private static func sandboxServer(
        _ configuration: PosternConfiguration, sandbox: MailSandbox, tls: TLSServerContext, resolver: DNSResolver,
        chaos: SMTPChaos?, clock: @escaping @Sendable () -> Int64, buffers: BufferBudget, group: EventLoopGroup,
        logger: Logger
    ) -> SMTPServer {
        var settings = smtpSettings(
            configuration, port: configuration.sandbox.smtpPort ?? 0, clock: clock, buffers: buffers)
        // Each session follows the rules of the Pro user it authenticated as, never the server's.
        settings.chaos = chaos.map { SMTPChaosTarget($0, scoping: .authenticatedUser) }
        settings.tls = tls
        settings.requiresAuthentication = true
        settings.plaintextAuthentication = configuration.sandbox.plaintextAuthOnLoopback ? .loopbackOnly : .never
        // POSTERN_SANDBOX_MAIL_AUTH=off (the test profile): no DNS lookups at all.
        let authenticator = configuration.sandbox.mailAuthentication ? MailAuthenticator(
            dns: ResolverMailAuthDNS(resolver: resolver), now: clock) : nil
        return SMTPServer(
            configuration: settings,
            sink: SandboxDeliverySink(sandbox: sandbox, authenticator: authenticator, logger: logger), group: group,
            logger: logger, observer: SMTPTransactionLog.observer("sandbox", metrics: nil, logger: logger))
    }

    /// What `serve` bound, as its JSON line (newline included): `{"http":"http://HOST:PORT","smtp":"HOST:PORT",
    /// "sandbox":"HOST:PORT","imap":"HOST:PORT","imaps":"HOST:PORT","pop3":"HOST:PORT","pop3s":"HOST:PORT",
    /// "submission":"HOST:PORT","submissions":"HOST:PORT",
    /// "data_dir":"/absolute/path","public_url":"...","pid":N}`, `null` for
    /// a listener that is off. The same line is the data directory's ``RunningServerRecord``.
    public var boundAddressesLine: [UInt8] {
        let listeners = ListenerSockets.Name.allCases.filter { $0 != .metrics }.map {
            ($0.rawValue, sockets.address($0).map(JSONValue.string) ?? .null)
        }
        return JSONValue.object(
            [("http", .string("http://\(listenAddress)"))] + listeners + [
                ("data_dir", .string(absoluteDataDirectory)),
                ("public_url", .string(identity.baseURL)), ("pid", .int(Int64(getpid()))),
            ]
        ).serialize() + [0x0a]
    }

    /// The data directory as an absolute path (``StorageConfiguration/absoluteDataDirectory``).
    public var absoluteDataDirectory: String { configuration.storage.absoluteDataDirectory }

    /// The SMTP sandbox listener's address as `host:port`; nil when it is off.
    public var sandboxListenAddress: String? { sockets.address(.sandbox) }

    /// The HTTP port bound (the real one with port 0).
    public var port: Int { listener.port }

    /// The bound address as `host:port` (`127.0.0.1:8080`, `[::1]:41234`), the real port included.
    public var listenAddress: String { PublicIdentity.authority(host: listener.host, port: listener.port) }
    /// How many event loops serve HTTP and SMTP.
    public var eventLoopCount: Int { group.loops.count }

    /// The `/metrics` listener's address as `host:port` (the real port with port 0); nil unless
    /// `POSTERN_METRICS_LISTEN` is set.
    public var metricsListenAddress: String? { sockets.address(.metrics) }

    /// The IMAP listener's address as `host:port` (the real port with port 0); nil when IMAP is off.
    public var imapListenAddress: String? { sockets.address(.imap) }

    /// The implicit-TLS IMAP listener's address as `host:port`; nil when IMAP is off or `POSTERN_IMAPS_PORT` unset.
    public var imapsListenAddress: String? { sockets.address(.imaps) }

    /// The submission listener's address as `host:port` (the real port with port 0); nil when it is off.
    public var submissionListenAddress: String? { sockets.address(.submission) }

    /// The implicit-TLS submission listener's address as `host:port`; nil when submission is off or
    /// `POSTERN_SUBMISSIONS_PORT` unset.
    public var submissionsListenAddress: String? { sockets.address(.submissions) }

    /// The POP3 listener's address as `host:port` (the real port with port 0); nil when POP3 is off.
    public var pop3ListenAddress: String? { sockets.address(.pop3) }

    /// The implicit-TLS POP3 listener's address as `host:port`; nil when POP3 is off or `POSTERN_POP3S_PORT` unset.
    public var pop3sListenAddress: String? { sockets.address(.pop3s) }

    /// The SMTP listener's address as `host:port` (the real port with port 0); nil when SMTP is off.
    public var smtpListenAddress: String? { sockets.address(.smtp) }

    /// Makes `/readyz` answer 503 `{"status":"draining"}` from now on while everything else keeps serving, so
    /// that a balancer health-checking it stops sending requests before the listeners close connections (the
    /// readiness service does this for `POSTERN_DRAIN_SECONDS` when the group shuts down).
    public func beginDraining() {
        drainFlag.set()
    }

    /// Returns once every event loop has completed a turn that began after the call: it has read its sockets since
    /// (for tests that must know bytes they sent were taken before they act).
    func completedTurnAfterNow() async {
        await group.completedTurnAfterNow()
    }

    /// Writes the access-log lines every loop has gathered, now (SIGUSR1: before a log rotation, say).
    public func flushAccessLog() {
        for loop in group.loops { loop.flushGatheredLines() }
    }

    /// Runs every service until ``triggerGracefulShutdown()`` (or until one fails), then stops them in the reverse of
    /// ``serviceNames``, each once the one after it has stopped; returns when the database has closed. Run it once.
    /// - Throws: the error of a service that failed (a listener that could not serve), after every service stopped.
    public func run() async throws {
        try await serviceGroup.run()
    }

    /// Rereads the key ring now, as the key reload service does every `POSTERN_KEY_RELOAD_SECONDS`.
    func reloadKeys() {
        KeyReloadLoop.reload(keyStore, now: clock.seconds, logger: logger)
    }

    /// Asks ``run()`` to stop every service in order, draining first (SIGTERM and SIGINT in `postern serve`); before
    /// ``run()`` has started, it makes it stop as soon as it has started everything.
    public func triggerGracefulShutdown() async {
        await serviceGroup.triggerGracefulShutdown()
    }
}
