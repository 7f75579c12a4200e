import ConfigurationReading
import IMAPServer

/// The IMAP listener (issue 70): whether it runs, where, its per-client cap and the PROXY header, and the
/// implicit-TLS port. It serves the one mail store to mail clients signed in with a Mail.td account's address and
/// password or an agent inbox's address and API key, with `STARTTLS` and SMTP's certificate; a password is taken
/// before TLS only from a loopback client (others see `LOGINDISABLED`).
///
/// ## Configuration keys
/// - `POSTERN_IMAP` (on or off, default off; `config/postern.env` and the test profile turn it on): ``enabled``.
/// - `POSTERN_IMAP_HOST` (an address, default the HTTP listen address): ``host``.
/// - `POSTERN_IMAP_PORT` (0 to 65535, default 1143): ``port``.
/// - `POSTERN_IMAPS_PORT` (0 to 65535, default unset: no implicit-TLS listener): ``implicitTLSPort``.
/// - `POSTERN_IMAP_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16): ``maxConnectionsPerClient``.
/// - `POSTERN_IMAP_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): ``proxyProtocol``.
public struct IMAPListenerConfiguration: Sendable, ProxyHeaderConfiguration {
    /// Whether the IMAP listener runs. Default false: several instances on one host (scripts/cluster) would clash on
    /// one port, so a deployment turns it on where it wants it.
    public var enabled = false
    /// IMAP listen address. Default nil: the HTTP listen address.
    public var host: String?
    /// IMAP listen port. Default 1143; 0 picks a free one.
    public var port = 1143
    /// The implicit-TLS (IMAPS, RFC 8314) listen port, on ``host``, with the certificate `STARTTLS` presents. Default
    /// nil: none (`make run` serves 1993; the test profile a free port); 0 picks a free one.
    public var implicitTLSPort: Int?
    /// Most simultaneous IMAP connections from one client address. Default 16; 0 for none.
    public var maxConnectionsPerClient = 16
    /// Whether connections from the trusted proxies begin with a PROXY protocol header naming the client. Default
    /// false.
    public var proxyProtocol = false

    /// Every default.
    public init() {}

    static let proxyProtocolKey = "POSTERN_IMAP_PROXY_PROTOCOL"

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let on = try config.flag("POSTERN_IMAP") { enabled = on }
        host = config.nonEmptyText("POSTERN_IMAP_HOST")
        if let port = try config.integer("POSTERN_IMAP_PORT") { self.port = port }
        implicitTLSPort = try config.integer("POSTERN_IMAPS_PORT")
        if let count = try config.integer("POSTERN_IMAP_MAX_CONNECTIONS_PER_CLIENT") { maxConnectionsPerClient = count }
        if let on = try config.flag(Self.proxyProtocolKey) { proxyProtocol = on }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ConfigurationError(key: "POSTERN_IMAP_PORT", message: "must be from 0 to 65535")
        }
        if let implicitTLSPort, !(0...65535).contains(implicitTLSPort) {
            throw ConfigurationError(key: "POSTERN_IMAPS_PORT", message: "must be from 0 to 65535")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ConfigurationError(
                key: "POSTERN_IMAP_MAX_CONNECTIONS_PER_CLIENT", message: "must be 0 (no cap) or positive")
        }
    }

    /// `/llms.txt`'s list line for IMAP (the ports when fixed, who signs in with what); empty when it is off.
    func guideLine(baseURL: String) -> String {
        guard enabled else { return "" }
        let ports = Self.guidePorts(port, upgrade: "STARTTLS", implicitTLSPort: implicitTLSPort)
        return "- IMAP for mail clients\(ports): every folder of a Mail.td account (its password, or an API "
            + "token of the Pro user who owns it), of an agent inbox (its API key) or of an owner's inbox "
            + "(`AUTHENTICATE OAUTHBEARER` or `XOAUTH2` with an access token for \(baseURL)/jmap carrying "
            + "`mail.read`); the same messages as every API here."
    }

    /// A mail listener's ports for its `/llms.txt` line, those that are fixed (0, a free one, is left out): the plain
    /// port with its TLS upgrade command (`upgrade`), then the implicit-TLS one. POP3's line uses it too.
    static func guidePorts(_ port: Int, upgrade: String, implicitTLSPort: Int?) -> String {
        var ports = port == 0 ? "" : " on port \(port) (\(upgrade))"
        if let implicitTLSPort, implicitTLSPort != 0 { ports += " and \(implicitTLSPort) (implicit TLS)" }
        return ports
    }

    /// The server's settings: ``host`` (else `listenerHost`), the cap, and the PROXY header's peers (`trustedProxies`)
    /// when ``proxyProtocol`` is on.
    func serverConfiguration(listenerHost: String, trustedProxies: [String], wallClock: @escaping @Sendable () -> Int64)
        -> IMAPServerConfiguration
    {
        var settings = IMAPServerConfiguration(host: host ?? listenerHost, port: port)
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.proxyProtocolPeers = proxyHeaderPeers(trustedProxies: trustedProxies)
        settings.wallClock = wallClock
        return settings
    }
}
