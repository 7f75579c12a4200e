import Foundation
import HTTP1
import Logging
import SocketServer

/// An HTTP/1.1 server: HTTP's state machine on the protocol-neutral event loops of `SocketServer`.
///
/// Every loop of the group accepts on the listener and serves what it accepted: a connection is read,
/// parsed, answered and written on the loop that took it (see `EventLoop`). A responder that completes
/// inline answers on the same loop with no thread hop; one that completes later is written in request
/// order.
///
/// ```swift
/// var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
/// let server = HTTPServer(configuration: configuration, responder: myResponder, logger: logger)
/// let port = try server.start()
/// // ...
/// await server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    private let configuration: HTTPServerConfiguration
    private let group: EventLoopGroup?
    /// Whether `group` was made here, so `shutdown()` stops and joins its threads.
    private let ownsGroup: Bool
    private let server: StreamServer?

    /// Creates a server on loops of its own (`eventQueueCount` of them, on the configured clock);
    /// nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - responder: routes and answers each request.
    ///   - logger: receives connection-level events at debug level; never request bodies or secrets.
    public convenience init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger
    ) {
        // Loops fail only when out of descriptors at start-up; then nothing can be served and `start()` says so.
        let group = try? EventLoopGroup(
            count: configuration.eventQueueCount, clock: configuration.clock,
            pollInterval: configuration.pollInterval, lineSink: configuration.accessLog)
        self.init(configuration: configuration, responder: responder, group: group, ownsGroup: true, logger: logger)
    }

    /// Creates a server on a shared, started `group` (HTTP beside other protocols on the same loops).
    public convenience init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, group: EventLoopGroup, logger: Logger
    ) {
        self.init(configuration: configuration, responder: responder, group: group, ownsGroup: false, logger: logger)
    }

    private init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, group: EventLoopGroup?, ownsGroup: Bool,
        logger: Logger
    ) {
        self.configuration = configuration
        self.group = group
        self.ownsGroup = ownsGroup
        if let group {
            var streamConfiguration = StreamServerConfiguration()
            streamConfiguration.maxConnections = configuration.maxConnections
            streamConfiguration.maxConnectionsPerClient = configuration.maxConnectionsPerClient
            streamConfiguration.shutdownGracePeriod = configuration.shutdownGracePeriod
            let service = HTTPService(
                shared: HTTPConnectionShared(configuration: configuration, responder: responder),
                group: group)
            server = StreamServer(configuration: streamConfiguration, service: service, group: group, logger: logger)
        } else {
            server = nil
        }
    }

    /// Connections open right now, including over-cap ones being refused.
    public var openConnectionCount: Int { server?.openConnectionCount ?? 0 }

    /// Returns once every loop has completed a turn that began after the call: it has read the clock, its sockets
    /// and its timers since (for tests that move an injected clock or write to a socket, instead of sleeping).
    public func completedTurnAfterNow() async {
        await group?.completedTurnAfterNow()
    }

    /// Binds the configured address, listens and starts serving.
    /// - Returns: the bound port (the chosen one when the configuration asked for port 0).
    /// - Throws: `SocketServerError` when the address cannot be bound or the server already started.
    public func start() throws -> Int {
        try start(
            on: ListeningSocket.bind(
                host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog))
    }

    /// Starts serving on a socket bound beforehand (so that the port was known before the routes were built).
    /// - Returns: the listener's port.
    /// - Throws: `SocketServerError` when the loops could not be made or the server already started.
    public func start(on listener: ListeningSocket) throws -> Int {
        guard let group, let server else { throw SocketServerError(code: .eventLoopSetupFailed, errno: EMFILE) }
        if ownsGroup { group.startOnce() }
        return try server.start(on: listener)
    }

    /// Stops accepting, lets requests in flight finish and be written, closes idle connections, and
    /// returns when every connection is closed (or the grace period has passed, after which what is
    /// left is closed). Loops this server made are stopped and their threads joined.
    public func shutdown() async {
        await server?.shutdown()
        if ownsGroup, let group { await group.shutdownJoining() }
    }
}
