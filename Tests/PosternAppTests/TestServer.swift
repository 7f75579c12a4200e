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

    /// A configuration for tests: port 0, a fresh data directory, fast proofs, no rate limits.
    static func configuration(dataDirectory: String? = nil) -> PosternConfiguration {
        var c = PosternConfiguration()
        c.port = 0
        c.smtpPort = 0
        c.sandboxSMTPPort = nil
        c.dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("postern-test-\(UUID().uuidString)").path
        c.issuer = "http://postern.test"
        c.publicURL = "http://postern.test"
        c.agent.baseDifficulty = 2
        c.agent.dynamicDifficulty = false
        c.mailbox.powDifficulty = 4
        c.rateLimits = false
        c.outboundAllowPrivate = true
        c.keySecret = "the test servers' key secret"
        if StorageBackend.current == .postgres {
            // Rotated keys sign at once, as in the data directory, which the rotation tests expect; the delay
            // itself is DatabaseKeyStoreTests' subject.
            c.keyPromotionSeconds = 0
            c.databaseURL = databaseURL(for: c.dataDirectory)
        }
        return c
    }

    /// On PostgreSQL, one database per data directory, so a test that restarts on a directory finds its data
    /// (and its keys).
    private static func databaseURL(for directory: String) -> String {
        databases.withLock { urls in
            if let url = urls[directory] { return url }
            let url = (try? PostgresTestServer.shared().freshDatabase()) ?? "postgres://unavailable.invalid/none"
            urls[directory] = url
            return url
        }
    }

    private static let databases = Mutex<[String: String]>([:])

    /// Builds and starts a server; `adjust` edits the test configuration first.
    static func start(
        _ adjust: (inout PosternConfiguration) -> Void = { _ in },
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        logger: Logger? = nil, accessLog: (any LineSink)? = nil
    ) async throws -> TestServer {
        let defaults = configuration()
        var configuration = defaults
        adjust(&configuration)
        if configuration.dataDirectory != defaults.dataDirectory, configuration.databaseURL == defaults.databaseURL,
            StorageBackend.current == .postgres
        {
            configuration.databaseURL = databaseURL(for: configuration.dataDirectory)
        }
        let logger = logger ?? {
            var quiet = Logger(label: "postern-test")
            quiet.logLevel = .warning
            return quiet
        }()
        let runtime = try await PosternRuntime.build(
            configuration: configuration, logger: logger, clock: clock, accessLog: accessLog ?? FileDescriptorSink())
        let port = try runtime.start()
        return TestServer(runtime: runtime, port: port, dataDirectory: configuration.dataDirectory)
    }

    /// A new keep-alive client connection.
    func client() throws -> TestHTTPClient { try TestHTTPClient(port: port) }

    /// Stops the server and removes its data directory.
    func stop() async {
        await runtime.shutdown()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }
}
