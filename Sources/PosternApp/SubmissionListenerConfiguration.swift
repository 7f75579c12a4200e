import ConfigurationReading
import SMTPServer

/// The submission listener (RFC 6409, issue 87): whether it runs, where, its implicit-TLS port (RFC 8314), its
/// per-client cap and the PROXY header, as POP3's listener has them. Mail clients sign in with the credentials IMAP
/// takes and send as the signed-in mailbox; it shares SMTP's greeting name, message size limit, session limit, the mail
/// buffers and SMTP's certificate. Before `STARTTLS` a client signs in only from a loopback address.
///
/// ## Configuration keys
/// - `POSTERN_SUBMISSION` (on or off, default off; `make run` and the test profile turn it on): ``enabled``.
/// - `POSTERN_SUBMISSION_HOST` (an address, default the HTTP listen address): ``host``.
/// - `POSTERN_SUBMISSION_PORT` (0 to 65535, default 1587): ``port``.
/// - `POSTERN_SUBMISSIONS_PORT` (0 to 65535, default unset: no implicit-TLS listener): ``implicitTLSPort``.
/// - `POSTERN_SUBMISSION_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16): ``maxConnectionsPerClient``.
/// - `POSTERN_SUBMISSION_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): ``proxyProtocol``.
public struct SubmissionListenerConfiguration: Sendable, ProxyHeaderConfiguration {
    /// Whether the submission listener runs. Default false, as IMAP's and POP3's: instances on one host would clash on
    /// one port.
    public var enabled = false
    /// Submission listen address. Default nil: the HTTP listen address.
    public var host: String?
    /// Submission listen port, with `STARTTLS`. Default 1587 (not 587, which needs privileges); 0 picks a free one.
    public var port = 1587
    /// The implicit-TLS (submissions, RFC 8314) listen port, on ``host``, with the certificate `STARTTLS` presents.
    /// Default nil: none (`make run` serves 1465; the test profile a free port); 0 picks a free one.
    public var implicitTLSPort: Int?
    /// Most simultaneous submission sessions from one client address. Default 16; 0 for none.
    public var maxConnectionsPerClient = 16
    /// Whether connections from the trusted proxies begin with a PROXY protocol header naming the client. Default
    /// false.
    public var proxyProtocol = false

    /// Every default.
    public init() {}

    static let proxyProtocolKey = "POSTERN_SUBMISSION_PROXY_PROTOCOL"

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let on = try config.flag("POSTERN_SUBMISSION") { enabled = on }
        host = config.nonEmptyText("POSTERN_SUBMISSION_HOST")
        if let port = try config.integer("POSTERN_SUBMISSION_PORT") { self.port = port }
        implicitTLSPort = try config.integer("POSTERN_SUBMISSIONS_PORT")
        if let count = try config.integer("POSTERN_SUBMISSION_MAX_CONNECTIONS_PER_CLIENT") {
            maxConnectionsPerClient = count
        }
        if let on = try config.flag(Self.proxyProtocolKey) { proxyProtocol = on }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ConfigurationError(key: "POSTERN_SUBMISSION_PORT", message: "must be from 0 to 65535")
        }
        if let implicitTLSPort, !(0...65535).contains(implicitTLSPort) {
            throw ConfigurationError(key: "POSTERN_SUBMISSIONS_PORT", message: "must be from 0 to 65535")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ConfigurationError(
                key: "POSTERN_SUBMISSION_MAX_CONNECTIONS_PER_CLIENT", message: "must be 0 (no cap) or positive")
        }
    }

    /// `/llms.txt`'s list line for submission (the ports when fixed, who signs in with what, what is checked); empty when
    /// it is off.
    func guideLine(baseURL: String) -> String {
        guard enabled else { return "" }
        let ports = IMAPListenerConfiguration.guidePorts(port, upgrade: "STARTTLS", implicitTLSPort: implicitTLSPort)
        return "- Submission for mail clients\(ports): send as the mailbox IMAP signs in to, with the same "
            + "credentials (`AUTH PLAIN` or `LOGIN`; an owner's inbox also `AUTH XOAUTH2` or `OAUTHBEARER` with an "
            + "access token for \(baseURL)/jmap carrying `mail.send`); `MAIL FROM` and `From` must be that mailbox, and "
            + "each message is a JMAP EmailSubmission (a Mail.td account sends nothing)."
    }

    /// The SMTP server's settings of a submission port from SMTP's (`smtp`: the greeting name, the size and session
    /// limits, the buffers): ``host`` (else `listenerHost`), the cap, the PROXY header's peers (`trustedProxies`) when
    /// ``proxyProtocol`` is on, authentication required (PLAIN, LOGIN, XOAUTH2, OAUTHBEARER), in plaintext from
    /// loopback only.
    func serverConfiguration(smtp: SMTPServerConfiguration, listenerHost: String, trustedProxies: [String])
        -> SMTPServerConfiguration
    {
        var settings = smtp
        settings.host = host ?? listenerHost
        settings.port = port
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.proxyProtocolPeers = proxyHeaderPeers(trustedProxies: trustedProxies)
        settings.requiresAuthentication = true
        settings.submission = true
        settings.plaintextAuthentication = .loopbackOnly
        settings.chaos = nil
        return settings
    }
}
