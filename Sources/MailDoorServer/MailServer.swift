import Logging
import SocketServer

/// A mail protocol's listener on SocketServer's event loops, shared with HTTP and SMTP: the one shell of
/// `IMAPServer` and `POP3Server`, which differ only in the service their initializers give it.
public final class MailServer<Configuration: MailListenerSettings>: Sendable {
    /// The settings in force.
    public let configuration: Configuration
    private let server: StreamServer

    package init(configuration: Configuration, service: some StreamService, group: EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        server = StreamServer(
            configuration: configuration.streamConfiguration, service: service, group: group, logger: logger)
    }

    /// Connections open right now, including over-cap ones being refused.
    public var openConnectionCount: Int { server.openConnectionCount }

    /// Binds the configured address and starts serving; returns the bound port.
    /// - Throws: `SocketServerError` when the address cannot be bound or the server already started.
    @discardableResult
    public func start() throws -> Int {
        try start(on: configuration.bind())
    }

    /// Starts serving on a socket bound beforehand; returns its port.
    @discardableResult
    public func start(on listener: ListeningSocket) throws -> Int {
        try server.start(on: listener)
    }

    /// Stops accepting, answers idle sessions their protocol's goodbye, lets commands in flight finish and be
    /// answered, and returns when every session is closed (or the grace period has passed).
    public func shutdown() async {
        await server.shutdown()
    }
}
