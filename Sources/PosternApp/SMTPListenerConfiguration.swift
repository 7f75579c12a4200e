import DNS
import SMTPServer
import ServerKit
import ServerTLS

/// The SMTP listener: whether it runs, where, the name it greets with, its limits, the PROXY header and the
/// certificate STARTTLS presents. The sandbox's listener shares the address, name and limits
/// (``SandboxConfiguration`` holds its own port).
///
/// ## Configuration keys
/// - `POSTERN_SMTP` (on or off, default on): ``enabled``.
/// - `POSTERN_SMTP_HOST` (an address, default the HTTP listen address): ``host``.
/// - `POSTERN_SMTP_PORT` (0 to 65535, or `off`; default 2525): ``port``.
/// - `POSTERN_SMTP_HOSTNAME` (a host name, default `localhost`; a fully qualified name when outbound delivery is on):
///   ``hostname``.
/// - `POSTERN_SMTP_MAX_MESSAGE_BYTES` (1024 to 1073741824, default 25 MiB): ``maxMessageBytes``.
/// - `POSTERN_MAIL_BUFFER_BYTES` (at least the message limit, at most 17179869184, default 256 MiB): ``bufferBytes``.
/// - `POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16): ``maxConnectionsPerClient``.
/// - `POSTERN_SMTP_MAX_SESSION_SECONDS` (positive integer, default 1800): ``maxSessionSeconds``.
/// - `POSTERN_SMTP_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): ``proxyProtocol``.
/// - `POSTERN_SMTP_TLS_CERT` (a PEM file, set with the key, default unset): ``tlsCertificate``.
/// - `POSTERN_SMTP_TLS_KEY` (a PEM file, set with the certificate, default unset): ``tlsKey``.
/// - `POSTERN_SMTP_CHAOS` (on or off, default off; on under `--profile test`): ``chaos``.
public struct SMTPListenerConfiguration: Sendable, ProxyHeaderConfiguration {
    /// Whether the SMTP listener runs. Default true: a local stand-in receives mail. Off, the sandbox's is off too.
    public var enabled = true
    /// SMTP listen address. Default nil: the HTTP listen address.
    public var host: String?
    /// SMTP listen port. Default 2525; 0 picks a free one; nil (`off`) runs no ingest listener while the sandbox's
    /// still runs (as `POSTERN_SANDBOX_SMTP_PORT=off` turns off only the sandbox's).
    public var port: Int? = 2525
    /// The name SMTP greets with, and outbound delivery's too: its `EHLO`, its `Message-ID`s, its `Received` line and
    /// the `MAILER-DAEMON@` of its bounces. Default `localhost`, refused while outbound delivery is on
    /// (``validate(outboundDelivery:)``).
    public var hostname = "localhost"
    /// Largest message SMTP takes, in bytes (and local delivery stores). Default 25 MiB.
    public var maxMessageBytes = 25 * 1024 * 1024
    /// The most bytes every mail session together holds for what clients send before it is stored: SMTP's and the
    /// sandbox's `DATA`, IMAP's literals (``BufferBudget``). Past it a session is refused for now (`452 4.3.1`, `NO
    /// [LIMIT]`), never the process. Default 256 MiB: ten messages of the largest size at once.
    public var bufferBytes = 256 * 1024 * 1024
    /// Most simultaneous SMTP sessions from one client address. Default 16; 0 for none.
    public var maxConnectionsPerClient = 16
    /// Longest an SMTP session may last, however busy; then `421 4.4.2` and close. Default 1800.
    public var maxSessionSeconds = 1800
    /// Whether SMTP connections from the trusted proxies begin with a PROXY protocol header naming the client (a
    /// balancer in TCP mode such as HAProxy with `send-proxy`). Default false.
    public var proxyProtocol = false
    /// The PEM certificate chain STARTTLS presents, with ``tlsKey``. Set, the main SMTP listener offers STARTTLS too;
    /// unset, only the sandbox listener does, with a self-signed pair generated into the data directory
    /// (`smtp-tls-cert.pem`, `smtp-tls-key.pem`) on first start.
    public var tlsCertificate: String?
    /// The PEM private key of ``tlsCertificate``.
    public var tlsKey: String?
    /// Whether SMTP failure injection can be turned on through the APIs (`/api/operator/chaos` for the ingest port,
    /// `/api/user/sandbox/chaos` for a Pro user's sandbox; docs/api/chaos.md). Default false: no rule can be set and a
    /// session asks nothing.
    public var chaos = false

    /// Every default.
    public init() {}

    var proxyProtocolKey: String { "POSTERN_SMTP_PROXY_PROTOCOL" }

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let on = try config.flag("POSTERN_SMTP") { enabled = on }
        host = config.text("POSTERN_SMTP_HOST")
        if let port = config.nonEmptyText("POSTERN_SMTP_PORT")?.lowercased() {
            guard port == "off" || Int(port) != nil else {
                throw config.error("POSTERN_SMTP_PORT", "must be off or a port from 0 to 65535 (got \"\(port)\")")
            }
            self.port = Int(port)
        }
        if let name = config.text("POSTERN_SMTP_HOSTNAME") { hostname = name }
        if let bytes = try config.integer("POSTERN_SMTP_MAX_MESSAGE_BYTES") { maxMessageBytes = bytes }
        if let bytes = try config.integer("POSTERN_MAIL_BUFFER_BYTES") { bufferBytes = bytes }
        if let count = try config.integer("POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT") { maxConnectionsPerClient = count }
        if let seconds = try config.integer("POSTERN_SMTP_MAX_SESSION_SECONDS") { maxSessionSeconds = seconds }
        if let on = try config.flag(proxyProtocolKey) { proxyProtocol = on }
        tlsCertificate = config.nonEmptyText("POSTERN_SMTP_TLS_CERT")
        tlsKey = config.nonEmptyText("POSTERN_SMTP_TLS_KEY")
        if let on = try config.flag("POSTERN_SMTP_CHAOS") { chaos = on }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault (the PROXY header's need of trusted
    /// proxies: ``validate(trustedProxies:)``).
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let port, !(0...65535).contains(port) {
            throw ConfigurationError(key: "POSTERN_SMTP_PORT", message: "must be off, or from 0 (a free port) to 65535")
        }
        guard (1024...(1 << 30)).contains(maxMessageBytes) else {
            throw ConfigurationError(key: "POSTERN_SMTP_MAX_MESSAGE_BYTES", message: "must be from 1024 to 1073741824")
        }
        guard (maxMessageBytes...(1 << 34)).contains(bufferBytes) else {
            throw ConfigurationError(
                key: "POSTERN_MAIL_BUFFER_BYTES", message: "must be from POSTERN_SMTP_MAX_MESSAGE_BYTES to 17179869184")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ConfigurationError(
                key: "POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT", message: "must be 0 (no cap) or positive")
        }
        guard maxSessionSeconds > 0 else {
            throw ConfigurationError(key: "POSTERN_SMTP_MAX_SESSION_SECONDS", message: "must be positive")
        }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ConfigurationError(
                key: tlsCertificate == nil ? "POSTERN_SMTP_TLS_CERT" : "POSTERN_SMTP_TLS_KEY",
                message: "POSTERN_SMTP_TLS_CERT and POSTERN_SMTP_TLS_KEY are set together or not at all")
        }
    }

    /// Refuses, while outbound delivery is on, a ``hostname`` that is not a fully qualified name the internet could
    /// resolve: receivers would see `EHLO localhost` and bounces from `MAILER-DAEMON@localhost`.
    /// - Parameter outboundDelivery: whether `POSTERN_OUTBOUND_DELIVERY` is `direct` or `relay`.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_SMTP_HOSTNAME`.
    public func validate(outboundDelivery: Bool) throws {
        guard outboundDelivery, !Self.isFullyQualified(hostname) else { return }
        throw ConfigurationError(
            key: "POSTERN_SMTP_HOSTNAME",
            message: "must be this server's fully qualified name (mx.example.com) while POSTERN_OUTBOUND_DELIVERY is "
                + "on, not \"\(hostname)\": receivers check the EHLO name, and bounces come from MAILER-DAEMON@ it")
    }

    /// Whether `name` is a fully qualified domain name (``DomainName``: two labels or more of letters, digits and
    /// inner hyphens, not an IP address, an optional final dot) and not `localhost` nor under it (RFC 6761: it names
    /// this machine to everyone).
    static func isFullyQualified(_ name: String) -> Bool {
        guard let name = DomainName.normalized(name) else { return false }
        return !name.hasSuffix(".localhost")
    }

    /// The SMTP server's settings for a listener on `port` (the main one or the sandbox's): ``host`` (else
    /// `listenerHost`, the HTTP listen address), the greeting's ``hostname``, the limits, and the PROXY header's peers
    /// (`trustedProxies`) when ``proxyProtocol`` is on.
    func serverConfiguration(port: Int, listenerHost: String, trustedProxies: [String]) -> SMTPServerConfiguration {
        var settings = SMTPServerConfiguration(host: host ?? listenerHost, port: port, hostname: hostname)
        settings.maxMessageBytes = maxMessageBytes
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.proxyProtocolPeers = proxyHeaderPeers(trustedProxies: trustedProxies)
        settings.maxSessionDuration = .seconds(maxSessionSeconds)
        return settings
    }

    /// The operator's certificate (``tlsCertificate``, ``tlsKey``); nil when none is configured.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_SMTP_TLS_CERT` when the files cannot be loaded.
    func operatorCertificate() throws -> TLSServerContext? {
        guard let tlsCertificate, let tlsKey else { return nil }
        do {
            return try TLSServerContext(certificateChainFile: tlsCertificate, privateKeyFile: tlsKey)
        } catch {
            throw ConfigurationError(key: "POSTERN_SMTP_TLS_CERT", message: "cannot be loaded: \(error)")
        }
    }
}
