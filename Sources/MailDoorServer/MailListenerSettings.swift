import ClientAddress
import SocketServer

/// The socket server's side of a mail listener's settings, IMAP's and POP3's alike: the address, the caps, the PROXY
/// header's peers and the grace period, made into one ``StreamServerConfiguration`` here for both.
public protocol MailListenerSettings: Sendable {
    /// Address to bind.
    var host: String { get }
    /// Port to bind; 0 picks a free one.
    var port: Int { get }
    /// Listen backlog.
    var listenBacklog: Int32 { get }
    /// Most open connections; one more is refused with the protocol's goodbye.
    var maxConnections: Int { get }
    /// Most open connections from one client address; 0 for no cap.
    var maxConnectionsPerClient: Int { get }
    /// Balancers whose connections begin with a PROXY header naming the client.
    var proxyProtocolPeers: [IPNetwork] { get }
    /// Longest time a shutdown waits for commands in flight.
    var shutdownGracePeriod: Duration { get }
}

extension MailListenerSettings {
    /// The stream server's configuration of these settings.
    var streamConfiguration: StreamServerConfiguration {
        var settings = StreamServerConfiguration()
        settings.maxConnections = maxConnections
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.proxyProtocolPeers = proxyProtocolPeers
        settings.shutdownGracePeriod = shutdownGracePeriod
        return settings
    }

    /// The configured address, bound.
    /// - Throws: `SocketServerError` when it cannot be bound.
    func bind() throws -> ListeningSocket {
        try ListeningSocket.bind(host: host, port: port, backlog: listenBacklog)
    }
}
