import ClientAddress
import ConfigurationReading
import IMAPServer
import POP3Server
import ServerTLS

/// A mail door's listener, IMAP's, POP3's and submission's alike: whether it runs, where, its implicit-TLS port
/// (RFC 8314), its per-client cap and the PROXY header, read from the keys of one prefix. Each door's configuration
/// embeds one and lists its keys (`IMAPListenerConfiguration`, `POP3ListenerConfiguration`,
/// `SubmissionListenerConfiguration`).
///
/// The keys, for a prefix such as `POSTERN_IMAP`: the prefix itself (on or off, ``enabled``), `_HOST` (``host``),
/// `_PORT` (0 to 65535, ``port``), the prefix with `S_PORT` (0 to 65535, unset for none, ``implicitTLSPort``),
/// `_MAX_CONNECTIONS_PER_CLIENT` (0 for none, ``maxConnectionsPerClient``) and `_PROXY_PROTOCOL` (on or off, on needs
/// trusted proxies, ``proxyProtocol``).
public struct MailListenerConfiguration: Sendable, ProxyHeaderConfiguration {
    /// Whether the listener runs. Default false: several instances on one host (scripts/cluster) would clash on one
    /// port, so a deployment turns it on where it wants it.
    public var enabled = false
    /// Listen address. Default nil: the HTTP listen address.
    public var host: String?
    /// Listen port, with the door's TLS upgrade command; 0 picks a free one. The default is the door's.
    public var port: Int
    /// The implicit-TLS listen port, on ``host``, with the certificate the upgrade command presents. Default nil:
    /// none; 0 picks a free one.
    public var implicitTLSPort: Int?
    /// Most simultaneous connections from one client address. Default 16; 0 for none.
    public var maxConnectionsPerClient = 16
    /// Whether connections from the trusted proxies begin with a PROXY protocol header naming the client. Default
    /// false.
    public var proxyProtocol = false
    /// The prefix of the keys it is read from, named when a value is refused.
    let keyPrefix: String

    /// Every default, with the door's `port`, read from the keys of `keyPrefix`.
    init(keyPrefix: String, port: Int) {
        self.keyPrefix = keyPrefix
        self.port = port
    }

    /// The keys a refusal names: the port's, the implicit-TLS port's, the cap's and the PROXY header's.
    var portKey: String { keyPrefix + "_PORT" }
    var implicitTLSPortKey: String { keyPrefix + "S_PORT" }
    var maxConnectionsPerClientKey: String { keyPrefix + "_MAX_CONNECTIONS_PER_CLIENT" }
    var proxyProtocolKey: String { keyPrefix + "_PROXY_PROTOCOL" }

    /// The defaults overridden by the keys of ``keyPrefix`` in `config`, then checked.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    mutating func read(_ config: ConfigurationReader) throws {
        if let on = try config.flag(keyPrefix) { enabled = on }
        host = config.nonEmptyText(keyPrefix + "_HOST")
        if let port = try config.integer(portKey) { self.port = port }
        implicitTLSPort = try config.integer(implicitTLSPortKey)
        if let count = try config.integer(maxConnectionsPerClientKey) { maxConnectionsPerClient = count }
        if let on = try config.flag(proxyProtocolKey) { proxyProtocol = on }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ConfigurationError(key: portKey, message: "must be from 0 to 65535")
        }
        if let implicitTLSPort, !(0...65535).contains(implicitTLSPort) {
            throw ConfigurationError(key: implicitTLSPortKey, message: "must be from 0 to 65535")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ConfigurationError(key: maxConnectionsPerClientKey, message: "must be 0 (no cap) or positive")
        }
    }

    /// The ports for the listener's `/llms.txt` line and landing-page row, those that are fixed (0, a free one, is left
    /// out): the plain port with its TLS upgrade command (`upgrade`), then the implicit-TLS one.
    func guidePorts(upgrade: String) -> String {
        var ports = port == 0 ? "" : " on port \(port) (\(upgrade))"
        if let implicitTLSPort, implicitTLSPort != 0 { ports += " and \(implicitTLSPort) (implicit TLS)" }
        return ports
    }

    /// `/llms.txt`'s list line for the `door` (`IMAP`): its fixed ports with its TLS upgrade command (`upgrade`), then
    /// `what` it serves to whom; empty when it is off.
    func guideLine(_ door: String, upgrade: String, what: String) -> String {
        enabled ? "- \(door) for mail clients\(guidePorts(upgrade: upgrade)): \(what)" : ""
    }

    /// A mail door server's settings: ``host`` (else `listenerHost`), ``port``, the cap, the PROXY header's peers
    /// (`trustedProxies`) when ``proxyProtocol`` is on, and the `wallClock`.
    func serverConfiguration<Settings: MailDoorServerSettings>(
        listenerHost: String, trustedProxies: [String], wallClock: @escaping @Sendable () -> Int64
    ) -> Settings {
        var settings = Settings(host: host ?? listenerHost, port: port)
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.proxyProtocolPeers = proxyHeaderPeers(trustedProxies: trustedProxies)
        settings.wallClock = wallClock
        return settings
    }
}

/// A mail door's configuration (IMAP's, POP3's, submission's): its ``MailListenerConfiguration``, and the keys of it
/// listed in its doc comment.
protocol MailDoorConfiguration {
    /// The listener: whether it runs, where, its ports, per-client cap and PROXY header, with the door's defaults.
    var listener: MailListenerConfiguration { get set }
    /// Every default.
    init()
}

extension MailDoorConfiguration {
    /// The defaults overridden by the keys the door lists, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    init(config: ConfigurationReader) throws {
        self.init()
        try listener.read(config)
    }
}

/// What the composition root sets on the IMAP and POP3 servers' configurations alike: the listener's settings
/// (``MailListenerConfiguration/serverConfiguration(listenerHost:trustedProxies:wallClock:)``) and TLS.
protocol MailDoorServerSettings {
    init(host: String, port: Int)
    var maxConnectionsPerClient: Int { get set }
    var proxyProtocolPeers: [IPNetwork] { get set }
    var wallClock: @Sendable () -> Int64 { get set }
    var tls: TLSServerContext? { get set }
    var implicitTLS: Bool { get set }
}

extension IMAPServerConfiguration: MailDoorServerSettings {}
extension POP3ServerConfiguration: MailDoorServerSettings {}
