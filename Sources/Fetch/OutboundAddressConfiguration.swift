import ConfigurationReading
import OutboundSocket

/// Which addresses the server's outbound requests (remote-hash fetches, webhook deliveries) may reach, as the operator
/// set it; ``policy`` is the ``OutboundPolicy`` every outbound request follows. Every default refuses what is not
/// public: no private address, no host let through, `https` only.
///
/// ``init(config:)`` reads the keys below from a reader of whole names; the older remote-hash names are aliases the
/// outbound names override.
///
/// ## Configuration keys
/// - `POSTERN_OUTBOUND_ALLOW_PRIVATE` (on or off, default off; also read as its older name
///   `POSTERN_REMOTE_HASH_ALLOW_PRIVATE`): ``allowPrivate``.
/// - `POSTERN_OUTBOUND_ALLOWED_HOSTS` (comma-separated hosts, default none; also read as its older name
///   `POSTERN_REMOTE_HASH_ALLOWED_HOSTS`): ``allowedHosts``.
public struct OutboundAddressConfiguration: Sendable, Equatable {
    /// Let outbound requests reach loopback, private, CGNAT and reserved addresses, and webhooks use plain `http`.
    /// Default false. Link-local and cloud-metadata addresses open only through ``allowedHosts``.
    public var allowPrivate = false
    /// Hosts outbound requests may reach whatever they resolve to, in the order configured. Default none.
    public var allowedHosts: [String] = []

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a switch that is neither on nor off.
    public init(config: ConfigurationReader) throws {
        let olderSwitch = try config.flag("POSTERN_REMOTE_HASH_ALLOW_PRIVATE")
        let olderHosts = config.list("POSTERN_REMOTE_HASH_ALLOWED_HOSTS")
        if let allow = try config.flag("POSTERN_OUTBOUND_ALLOW_PRIVATE") ?? olderSwitch { allowPrivate = allow }
        if let hosts = config.list("POSTERN_OUTBOUND_ALLOWED_HOSTS") ?? olderHosts { allowedHosts = hosts }
    }

    /// The one policy of every outbound request (plain `http` only where private addresses are allowed).
    public var policy: OutboundPolicy { OutboundPolicy(allowPrivate: allowPrivate, allowedHosts: allowedHosts) }
}
