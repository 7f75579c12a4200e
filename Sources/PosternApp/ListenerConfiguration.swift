import ClientAddress
import ServerKit

/// Where HTTP listens and how much it takes at once: the address, the connection caps, the event loops, the proxies
/// whose `X-Forwarded-For` is believed and the drain before a shutdown.
///
/// ## Configuration keys
/// - `POSTERN_HOST` (an address, default `127.0.0.1`): ``host``.
/// - `POSTERN_PORT` (0 to 65535, default 8080): ``port``.
/// - `POSTERN_MAX_CONNECTIONS` (positive integer, default 4096): ``maxConnections``.
/// - `POSTERN_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 512): ``maxConnectionsPerClient``.
/// - `POSTERN_EVENT_LOOPS` (1 to 256, default one per processor): ``eventLoops``.
/// - `POSTERN_TRUSTED_PROXIES` (comma-separated CIDRs, default none): ``trustedProxies``.
/// - `POSTERN_DRAIN_SECONDS` (0 to 300, default 0): ``drainSeconds``.
public struct ListenerConfiguration: Sendable {
    /// Listen address. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// Listen port. Default 8080; 0 picks a free one.
    public var port = 8080
    /// Maximum simultaneous client connections. Default 4096.
    public var maxConnections = 4096
    /// Most simultaneous HTTP connections from one client address, the socket peer, IPv6 per /64. Default 512; 0 for
    /// none, as behind a proxy whose address every connection has.
    public var maxConnectionsPerClient = 512
    /// Event loops serving HTTP and SMTP (as nginx's `worker_processes`). Default nil: one per processor the process
    /// may run on.
    public var eventLoops: Int?
    /// CIDRs whose `X-Forwarded-For` is believed (and, with `POSTERN_SMTP_PROXY_PROTOCOL`, whose SMTP connections
    /// begin with a PROXY header). Default none.
    public var trustedProxies: [String] = []
    /// Seconds between SIGTERM and the shutdown during which `/readyz` fails and everything else is served. Default 0:
    /// long enough for a balancer's health check to take the instance out, so that no request is sent on a
    /// connection the shutdown closes.
    public var drainSeconds = 0

    /// The most event loops a process runs (each is a thread with an epoll set).
    public static let maxEventLoops = 256

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let host = config.text("POSTERN_HOST") { self.host = host }
        if let port = try config.integer("POSTERN_PORT") { self.port = port }
        if let count = try config.integer("POSTERN_MAX_CONNECTIONS") { maxConnections = count }
        if let count = try config.integer("POSTERN_MAX_CONNECTIONS_PER_CLIENT") { maxConnectionsPerClient = count }
        if let count = try config.integer("POSTERN_EVENT_LOOPS") { eventLoops = count }
        if let cidrs = config.list("POSTERN_TRUSTED_PROXIES") { trustedProxies = cidrs }
        if let seconds = try config.integer("POSTERN_DRAIN_SECONDS") { drainSeconds = seconds }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ConfigurationError(key: "POSTERN_PORT", message: "must be from 0 to 65535")
        }
        guard maxConnections > 0 else {
            throw ConfigurationError(key: "POSTERN_MAX_CONNECTIONS", message: "must be positive")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ConfigurationError(
                key: "POSTERN_MAX_CONNECTIONS_PER_CLIENT", message: "must be 0 (no cap) or positive")
        }
        if let eventLoops, !(1...Self.maxEventLoops).contains(eventLoops) {
            throw ConfigurationError(
                key: "POSTERN_EVENT_LOOPS",
                message: "must be 1 to \(Self.maxEventLoops), or unset for one per processor")
        }
        for cidr in trustedProxies where IPNetwork(cidr) == nil {
            throw ConfigurationError(
                key: "POSTERN_TRUSTED_PROXIES", message: "\"\(cidr)\" is not a CIDR such as 10.0.0.0/8")
        }
        guard (0...300).contains(drainSeconds) else {
            throw ConfigurationError(key: "POSTERN_DRAIN_SECONDS", message: "must be from 0 to 300")
        }
    }
}
