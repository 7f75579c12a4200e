import Logging
import MailStore
import SocketServer

/// An IMAP server over the one mail store: IMAP's session machine on SocketServer's event loops, shared with HTTP
/// and SMTP, with the same connection caps, per-client cap, PROXY protocol and graceful shutdown as SMTP.
///
/// ```swift
/// let imap = IMAPServer(configuration: IMAPServerConfiguration(port: 1143), store: store, signIn: accounts,
///     group: group, logger: logger)
/// let port = try imap.start()
/// // ...
/// await imap.shutdown()   // then the group's owner stops the loops
/// ```
public final class IMAPServer: Sendable {
    /// The settings in force.
    public let configuration: IMAPServerConfiguration
    private let server: StreamServer

    /// Creates a server on a started, shared `group`; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - store: the mail store every door shares.
    ///   - signIn: checks a holder's credential (the composition root's port over the surfaces that own them).
    ///   - logger: failures at error level (the error's type only, never mail or credentials).
    ///   - draining: true while the instance drains before it stops: each new connection is answered `* BYE` and
    ///     closed; connections already open go on.
    public init(
        configuration: IMAPServerConfiguration, store: MailStore, signIn: any IMAPSignIn, group: EventLoopGroup,
        logger: Logger, draining: @escaping @Sendable () -> Bool = { false }
    ) {
        self.configuration = configuration
        var streamConfiguration = StreamServerConfiguration()
        streamConfiguration.maxConnections = configuration.maxConnections
        streamConfiguration.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        streamConfiguration.proxyProtocolPeers = configuration.proxyProtocolPeers
        streamConfiguration.shutdownGracePeriod = configuration.shutdownGracePeriod
        server = StreamServer(
            configuration: streamConfiguration,
            service: IMAPService(
                configuration: configuration, store: store, signIn: signIn, logger: logger, draining: draining,
                snapshots: IMAPSnapshotCache(capacity: configuration.snapshotCacheEntries)),
            group: group, logger: logger)
    }

    /// Connections open right now, including over-cap ones being refused.
    public var openConnectionCount: Int { server.openConnectionCount }

    /// Binds the configured address and starts serving; returns the bound port.
    /// - Throws: `SocketServerError` when the address cannot be bound or the server already started.
    @discardableResult
    public func start() throws -> Int {
        try start(
            on: ListeningSocket.bind(
                host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog))
    }

    /// Starts serving on a socket bound beforehand; returns its port.
    @discardableResult
    public func start(on listener: ListeningSocket) throws -> Int {
        try server.start(on: listener)
    }

    /// Stops accepting, answers idle sessions `* BYE`, lets commands in flight finish and be answered, and returns
    /// when every session is closed (or the grace period has passed).
    public func shutdown() async {
        await server.shutdown()
    }
}
