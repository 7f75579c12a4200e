import ClientAddress
import ComputePool
import EmbeddedResources
import Foundation
import HTTP1
import HTTPServer
import JWT
import Logging
import MailboxAccounts
import Storage
import Synchronization

/// One running Postern: the database, keys, worker pool, surfaces and the HTTP server, composed once.
/// `postern serve` and the end-to-end tests both build it through ``build(configuration:logger:clock:)``.
public final class PosternRuntime: Sendable {
    /// The configuration it was built from.
    public let configuration: PosternConfiguration
    /// The SQLite database (migrated).
    public let database: Database
    /// Every signing and verification key.
    public let keys: JWTKeySet
    /// The bounded pool for scrypt, Argon2 and RSA.
    public let pool: WorkerPool
    private let server: HTTPServer
    private let ledger: ChallengeLedger
    private let keyStore: KeyStore
    private let keyReload = Mutex<Task<Void, Never>?>(nil)
    private let purge = Mutex<PurgeSchedule?>(nil)
    private let clock: @Sendable () -> Int64
    private let logger: Logger

    private init(
        configuration: PosternConfiguration, database: Database, keys: JWTKeySet, pool: WorkerPool,
        server: HTTPServer, ledger: ChallengeLedger, keyStore: KeyStore, clock: @escaping @Sendable () -> Int64,
        logger: Logger
    ) {
        self.keyStore = keyStore
        self.configuration = configuration
        self.database = database
        self.keys = keys
        self.pool = pool
        self.server = server
        self.ledger = ledger
        self.clock = clock
        self.logger = logger
    }

    /// Opens the data directory, applies pending migrations, loads or generates keys and wires every route.
    /// - Parameters:
    ///   - configuration: a validated configuration.
    ///   - logger: the root logger; components log below it.
    ///   - clock: Unix seconds now; injected so tests can move time.
    /// - Throws: configuration, storage, migration or key errors; nothing is served on failure.
    public static func build(
        configuration: PosternConfiguration, logger: Logger,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) async throws -> PosternRuntime {
        try configuration.validate()
        try DataDirectory.prepare(configuration.dataDirectory)
        let database = try Database.open(
            path: DataDirectory.databasePath(configuration.dataDirectory), readerCount: 2, logger: logger)
        let applied = try Migrator.shipped.migrate(database)
        if !applied.isEmpty { logger.notice("applied migrations", metadata: ["migrations": "\(applied)"]) }
        let keyStore = try KeyStore.open(configuration: configuration, now: clock())
        let keys = keyStore.keySet()
        let pool = WorkerPool()
        let ledger = ChallengeLedger(database: database)
        let metrics = PosternMetrics.shared

        let connections = ConnectionCountBox()
        var router = Router()
        CommonRoutes.register(
            into: &router, database: database, metrics: metrics, keys: keys,
            openAPI: EmbeddedResources.openAPIDocument.bytes, clock: clock,
            openConnections: { connections.count() })
        let unmatched = try Surfaces.register(
            into: &router, configuration: configuration, keys: keys, database: database, ledger: ledger,
            pool: pool, clock: clock, logger: logger)

        let responder = PosternResponder(
            router: router, unmatched: unmatched,
            clientAddresses: configuration.trustedProxies.isEmpty
                ? nil : ClientAddressResolver(trustedProxies: configuration.trustedProxies),
            metrics: metrics, logger: logger)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = configuration.port
        serverConfiguration.maxConnections = configuration.maxConnections
        let server = HTTPServer(configuration: serverConfiguration, responder: responder, logger: logger)
        connections.attach(server)
        return PosternRuntime(
            configuration: configuration, database: database, keys: keys, pool: pool, server: server,
            ledger: ledger, keyStore: keyStore, clock: clock, logger: logger)
    }

    /// Binds and starts serving; returns the bound port (useful with port 0).
    public func start() throws -> Int {
        let port = try server.start()
        let schedule = ledger.startPurging(every: .seconds(60), now: clock)
        purge.withLock { $0 = schedule }
        keyReload.withLock { task in
            task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(KeyStore.reloadInterval))
                    self?.reloadKeys()
                }
            }
        }
        return port
    }

    /// Stops accepting, finishes requests in flight, closes idle connections and stops the purge.
    public func shutdown() async {
        purge.withLock { $0?.cancel(); $0 = nil }
        keyReload.withLock { $0?.cancel(); $0 = nil }
        await server.shutdown()
    }

    /// Picks up keys rotated by `postern keys rotate` and drops keys past their retention; every surface
    /// and the JWKS see the change at once (they share the key set). Runs every `KeyStore.reloadInterval`.
    func reloadKeys() {
        do {
            try keyStore.reload(now: clock())
        } catch {
            logger.error("reloading keys failed; serving with the keys loaded before", metadata: ["error": "\(error)"])
        }
    }
}
