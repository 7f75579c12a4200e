import Logging
import SocketServer

/// An SMTP ingest server: SMTP's session state machine on the protocol-neutral event loops of
/// `SocketServer`, on a group shared with other protocols (HTTP).
///
/// ```swift
/// let group = try EventLoopGroup()
/// group.startOnce()
/// let smtp = SMTPServer(configuration: SMTPServerConfiguration(port: 2525), sink: store, group: group, logger: logger)
/// let port = try smtp.start()
/// // ...
/// await smtp.shutdown()   // then the group's owner stops the loops
/// ```
public final class SMTPServer: Sendable {
    /// The limits in force.
    public let configuration: SMTPServerConfiguration
    private let server: StreamServer

    /// Creates a server on a started, shared `group`; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - sink: the recipient policy and durable delivery (the mail store).
    ///   - group: the event loops to serve on; their owner starts and stops them.
    ///   - logger: connection-level events and failed deliveries at debug level; never message text.
    ///   - observer: told of stored and refused messages and recipients (metrics), on a loop; must not block.
    ///   - draining: read as each connection opens: true answers it `421 4.3.2` and closes it (the drain before a
    ///     stop, as the mail doors' listeners do). Default: never.
    public init(
        configuration: SMTPServerConfiguration, sink: any SMTPMailSink, group: EventLoopGroup, logger: Logger,
        observer: (@Sendable (SMTPSessionEvent) -> Void)? = nil, draining: @escaping @Sendable () -> Bool = { false }
    ) {
        self.configuration = configuration
        var streamConfiguration = StreamServerConfiguration()
        streamConfiguration.maxConnections = configuration.maxConnections
        streamConfiguration.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        streamConfiguration.proxyProtocolPeers = configuration.proxyProtocolPeers
        streamConfiguration.shutdownGracePeriod = configuration.shutdownGracePeriod
        server = StreamServer(
            configuration: streamConfiguration,
            service: SMTPService(
                configuration: configuration, sink: sink, logger: logger, observer: observer, draining: draining),
            group: group,
            logger: logger)
    }

    /// Sessions open right now, including over-cap ones being refused.
    public var openConnectionCount: Int { server.openConnectionCount }

    /// Binds the configured address, listens and starts serving.
    /// - Returns: the bound port (the chosen one when the configuration asked for port 0).
    /// - Throws: `SocketServerError` when the address cannot be bound or the server already started.
    @discardableResult
    public func start() throws -> Int {
        try start(
            on: ListeningSocket.bind(
                host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog))
    }

    /// Starts serving on a socket bound beforehand.
    /// - Returns: the listener's port.
    /// - Throws: `SocketServerError` when the server already started or the listener cannot be watched.
    @discardableResult
    public func start(on listener: ListeningSocket) throws -> Int {
        try server.start(on: listener)
    }

    /// Stops accepting, answers idle sessions `421 4.3.2` and closes them, lets a message being read
    /// or stored finish and be answered, and returns when every session is closed (or the grace period
    /// has passed, after which what is left is closed). The loops keep running: their owner stops them.
    public func shutdown() async {
        await server.shutdown()
    }
}
