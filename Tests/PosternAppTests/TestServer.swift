import Foundation
import SocketServer
import Logging
import PosternTestSupport
import Synchronization
@testable import PosternApp

/// A real Postern on port 0 over a temporary data directory, for end-to-end tests.
struct TestServer {
    let runtime: PosternRuntime
    let port: Int
    let dataDirectory: String
    /// The runtime's service group, running until ``shutdown()``.
    let running: Task<Void, any Error>

    /// A configuration for tests: port 0, a fresh data directory, fast proofs and password hashes, no rate limits; on
    /// PostgreSQL, a new database of its own (``databaseURL(for:migrated:)``): empty, as the new directory is, or with
    /// `migrated` a copy of the migrated template, as ``start(_:_:clock:logger:accessLog:services:)`` takes it.
    static func configuration(
        _ backend: StorageBackend, dataDirectory: String? = nil, migrated: Bool = false, keyed: Bool = false
    ) -> PosternConfiguration {
        var c = PosternConfiguration()
        c.listener.port = 0
        c.smtp.port = 0
        c.sandbox.smtpPort = nil
        c.storage.dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("postern-test-\(UUID().uuidString)").path
        c.identity.issuer = "http://postern.test"
        c.identity.publicURL = "http://postern.test"
        c.agent.baseDifficulty = 2
        c.agent.dynamicDifficulty = false
        c.mailbox.powDifficulty = 4
        c.rateLimits.enabled = false
        c.passwords.argon2 = PasswordHashConfiguration.testProfile
        c.outboundAddresses.allowPrivate = true
        c.signingKeys.secret = "the test servers' key secret"
        if backend == .postgres {
            // Rotated keys sign at once, as in the data directory, which the rotation tests expect; the delay
            // itself is DatabaseKeyStoreTests' subject.
            c.signingKeys.promotionSeconds = 0
            c.storage.databaseURL = databaseURL(for: c.storage.dataDirectory, migrated: migrated, keyed: keyed)
        }
        return c
    }

    /// On PostgreSQL, one database per data directory, so a test that restarts on a directory finds its data
    /// (and its keys); a new one is empty, as a new data directory is, or `migrated` (a copy of the template), or
    /// `keyed` (a copy of ``KeyedTemplate``'s).
    private static func databaseURL(for directory: String, migrated: Bool, keyed: Bool = false) -> String {
        databases.withLock { urls in
            if let url = urls[directory] { return url }
            let server = try? PostgresTestServer.shared()
            let made =
                keyed
                ? try? KeyedTemplate.postgresDatabase(logger: Logger(label: "postern-test"))
                : try? migrated ? server?.migratedDatabase() : server?.freshDatabase()
            let url = made ?? "postgres://unavailable.invalid/none"
            urls[directory] = url
            return url
        }
    }

    private static let databases = Mutex<[String: String]>([:])

    /// Builds and starts a server; `adjust` edits the test configuration first.
    /// - Parameters:
    ///   - backend: where its data lives: SQLite in its data directory, or a new database on ``PostgresTestServer``.
    ///   - clock: Unix seconds; the system's wall clock when nil.
    ///   - services: which services run (all by default, as `postern serve` runs them).
    ///   - freshKeys: the server makes its keys at its first start, as a new server does, instead of finding
    ///     ``KeyedTemplate``'s, which every other test server holds too.
    static func start(
        _ backend: StorageBackend, _ adjust: (inout PosternConfiguration) -> Void = { _ in },
        clock: (@Sendable () -> Int64)? = nil,
        logger: Logger? = nil, accessLog: (any LineSink)? = nil, services: PosternServiceSet = .all,
        freshKeys: Bool = false
    ) async throws -> TestServer {
        let defaults = configuration(backend, migrated: true, keyed: !freshKeys)
        var configuration = defaults
        adjust(&configuration)
        if configuration.storage.dataDirectory != defaults.storage.dataDirectory,
            configuration.storage.databaseURL == defaults.storage.databaseURL,
            backend == .postgres
        {
            configuration.storage.databaseURL = databaseURL(
                for: configuration.storage.dataDirectory, migrated: true, keyed: !freshKeys)
        }
        let logger = logger ?? {
            var quiet = Logger(label: "postern-test")
            quiet.logLevel = .warning
            return quiet
        }()
        let directory = configuration.storage.dataDirectory
        if backend == .sqlite, configuration.storage.databaseURL == nil,
            !FileManager.default.fileExists(atPath: directory)
        {
            // A new data directory starts with the migrated database (and the keyed template's keys), as a restarted
            // server finds it.
            if freshKeys {
                try DataDirectory.prepare(directory)
                try MigratedTemplate.copySQLite(to: DataDirectory.databasePath(directory), logger: logger)
            } else {
                try KeyedTemplate.copySQLite(to: directory, logger: logger)
            }
        }
        let runtime = try await PosternRuntime.build(
            configuration: configuration, logger: logger, clock: clock.map(WallClock.init(seconds:)) ?? .system,
            accessLog: accessLog ?? FileDescriptorSink(), services: services)
        let running = Task { try await runtime.run() }
        return TestServer(
            runtime: runtime, port: runtime.port, dataDirectory: configuration.storage.dataDirectory, running: running)
    }

    /// A new keep-alive client connection.
    func client() throws -> TestHTTPClient { try TestHTTPClient(port: port) }

    /// Stops every service in order, as SIGTERM does, and waits until the database has closed.
    func shutdown() async {
        await runtime.triggerGracefulShutdown()
        try? await running.value
    }

    /// Stops the server and removes its data directory.
    func stop() async {
        await shutdown()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }
}
