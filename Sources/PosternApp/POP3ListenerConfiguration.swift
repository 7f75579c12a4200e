import ConfigurationReading
import POP3Server

/// The POP3 listener (issue 70): whether it runs, where, its per-client cap and the PROXY header, and the
/// implicit-TLS port, as IMAP's listener has them. It serves the INBOX of the one mail store to the holders IMAP signs
/// in, with the same credentials, and `STLS` with SMTP's certificate; before `STLS` a password is taken only from a
/// loopback client.
///
/// ## Configuration keys
/// - `POSTERN_POP3` (on or off, default off; `make run` and the test profile turn it on): ``enabled``.
/// - `POSTERN_POP3_HOST` (an address, default the HTTP listen address): ``host``.
/// - `POSTERN_POP3_PORT` (0 to 65535, default 1110): ``port``.
/// - `POSTERN_POP3S_PORT` (0 to 65535, default unset: no implicit-TLS listener): ``implicitTLSPort``.
/// - `POSTERN_POP3_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16): ``maxConnectionsPerClient``.
/// - `POSTERN_POP3_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): ``proxyProtocol``.
public struct POP3ListenerConfiguration: Sendable, ProxyHeaderConfiguration {
    /// Whether the POP3 listener runs. Default false, as IMAP's: instances on one host would clash on one port.
    public var enabled = false
    /// POP3 listen address. Default nil: the HTTP listen address.
    public var host: String?
    /// POP3 listen port. Default 1110 (not 110, which needs privileges); 0 picks a free one.
    public var port = 1110
    /// The implicit-TLS (POP3S, RFC 8314) listen port, on ``host``, with the certificate `STLS` presents. Default nil:
    /// none (`make run` serves 1995; the test profile a free port); 0 picks a free one.
    public var implicitTLSPort: Int?
    /// Most simultaneous POP3 connections from one client address. Default 16; 0 for none.
    public var maxConnectionsPerClient = 16
    /// Whether connections from the trusted proxies begin with a PROXY protocol header naming the client. Default
    /// false.
    public var proxyProtocol = false

    /// Every default.
    public init() {}

    static let proxyProtocolKey = "POSTERN_POP3_PROXY_PROTOCOL"

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let on = try config.flag("POSTERN_POP3") { enabled = on }
        host = config.nonEmptyText("POSTERN_POP3_HOST")
        if let port = try config.integer("POSTERN_POP3_PORT") { self.port = port }
        implicitTLSPort = try config.integer("POSTERN_POP3S_PORT")
        if let count = try config.integer("POSTERN_POP3_MAX_CONNECTIONS_PER_CLIENT") { maxConnectionsPerClient = count }
        if let on = try config.flag(Self.proxyProtocolKey) { proxyProtocol = on }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ConfigurationError(key: "POSTERN_POP3_PORT", message: "must be from 0 to 65535")
        }
        if let implicitTLSPort, !(0...65535).contains(implicitTLSPort) {
            throw ConfigurationError(key: "POSTERN_POP3S_PORT", message: "must be from 0 to 65535")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ConfigurationError(
                key: "POSTERN_POP3_MAX_CONNECTIONS_PER_CLIENT", message: "must be 0 (no cap) or positive")
        }
    }

    /// `/llms.txt`'s list line for POP3, beside IMAP's (the ports when fixed, who signs in with what); empty when it is
    /// off.
    func guideLine(baseURL: String) -> String {
        guard enabled else { return "" }
        let ports = IMAPListenerConfiguration.guidePorts(port, upgrade: "STLS", implicitTLSPort: implicitTLSPort)
        return "- POP3 for mail clients\(ports): the INBOX of the holders IMAP signs in, with the same credentials "
            + "(`USER`/`PASS` or `AUTH PLAIN`; an owner's inbox also `AUTH OAUTHBEARER` or `AUTH XOAUTH2` with an "
            + "access token for \(baseURL)/jmap carrying `mail.read`); `DELE` then `QUIT` deletes for every door."
    }

    /// The server's settings: ``host`` (else `listenerHost`), the cap, and the PROXY header's peers (`trustedProxies`)
    /// when ``proxyProtocol`` is on.
    func serverConfiguration(listenerHost: String, trustedProxies: [String], wallClock: @escaping @Sendable () -> Int64)
        -> POP3ServerConfiguration
    {
        var settings = POP3ServerConfiguration(host: host ?? listenerHost, port: port)
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.proxyProtocolPeers = proxyHeaderPeers(trustedProxies: trustedProxies)
        settings.wallClock = wallClock
        return settings
    }
}
