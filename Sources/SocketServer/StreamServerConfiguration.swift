import ClientAddress

/// The protocol-neutral limits of a `StreamServer`.
public struct StreamServerConfiguration: Sendable {
    /// Most open client connections; one more gets the protocol's refusal (`refusing` machine). Default 4096.
    public var maxConnections: Int = 4096
    /// Most open connections from one client (the socket peer's address, IPv6 per /64); one more gets
    /// the protocol's refusal like a connection over `maxConnections`. 0 for no such cap. Default 0.
    public var maxConnectionsPerClient: Int = 0
    /// Most over-cap connections kept open at once to deliver their refusal; beyond, they are closed
    /// at once. Default 64.
    public var maxRefusingConnections: Int = 64
    /// Balancers whose connections begin with a PROXY protocol header (v1 or v2) naming the client: a connection from
    /// one of these networks is served as coming from that client, and is not counted against
    /// `maxConnectionsPerClient` (the balancer, which sees the clients, caps them). Empty (the default): none.
    public var proxyProtocolPeers: [IPNetwork] = []
    /// How long a balancer's connection may take to send its PROXY header before it is closed. Default 10 s.
    public var proxyHeaderTimeout: Duration = .seconds(10)
    /// Longest time `shutdown()` waits for work in flight before closing what is left. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// How long accepting pauses when the process is out of descriptors. Default 100 ms.
    public var acceptPauseOnExhaustion: Duration = .milliseconds(100)

    /// The defaults listed on each property.
    public init() {}
}
