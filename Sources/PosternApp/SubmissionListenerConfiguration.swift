import SMTPServer

/// The submission listener (RFC 6409, issue 87): whether it runs, where, its implicit-TLS port (RFC 8314), its
/// per-client cap and the PROXY header, as POP3's listener has them. Mail clients sign in with the credentials IMAP
/// takes and send as the signed-in mailbox; it shares SMTP's greeting name, message size limit, session limit, the mail
/// buffers and SMTP's certificate. Before `STARTTLS` a client signs in only from a loopback address.
///
/// ## Configuration keys
/// - `POSTERN_SUBMISSION` (on or off, default off; `make run` and the test profile turn it on): `listener.enabled`.
/// - `POSTERN_SUBMISSION_HOST` (an address, default the HTTP listen address): `listener.host`.
/// - `POSTERN_SUBMISSION_PORT` (0 to 65535, default 1587): `listener.port`.
/// - `POSTERN_SUBMISSIONS_PORT` (0 to 65535, default unset: no implicit-TLS listener): `listener.implicitTLSPort`.
/// - `POSTERN_SUBMISSION_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16):
///   `listener.maxConnectionsPerClient`.
/// - `POSTERN_SUBMISSION_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): `listener.proxyProtocol`.
public struct SubmissionListenerConfiguration: Sendable, MailDoorConfiguration {
    /// The listener (``MailDoorConfiguration/listener``). Default off, on port 1587.
    public var listener = MailListenerConfiguration(keyPrefix: "POSTERN_SUBMISSION", port: 1587)

    /// `/llms.txt`'s list line for submission (the ports when fixed, who signs in with what, what is checked); empty when
    /// it is off.
    func guideLine(baseURL: String) -> String {
        listener.guideLine(
            "Submission", upgrade: "STARTTLS",
            what: "send as the mailbox IMAP signs in to, with the same "
                + "credentials (`AUTH PLAIN` or `LOGIN`; an owner's inbox also `AUTH XOAUTH2` or `OAUTHBEARER` with an "
                + "access token for \(baseURL)/jmap carrying `mail.send`); `MAIL FROM` and `From` must be that mailbox, and "
                + "each message is a JMAP EmailSubmission (a Mail.td account sends nothing).")
    }

    /// The SMTP server's settings of a submission port from SMTP's (`smtp`: the greeting name, the size and session
    /// limits, the buffers): the listener's host (else `listenerHost`), its cap, the PROXY header's peers
    /// (`trustedProxies`) when its `proxyProtocol` is on, authentication required (PLAIN, LOGIN, XOAUTH2, OAUTHBEARER),
    /// in plaintext from loopback only.
    func serverConfiguration(smtp: SMTPServerConfiguration, listenerHost: String, trustedProxies: [String])
        -> SMTPServerConfiguration
    {
        var settings = smtp
        settings.host = listener.host ?? listenerHost
        settings.port = listener.port
        settings.maxConnectionsPerClient = listener.maxConnectionsPerClient
        settings.proxyProtocolPeers = listener.proxyHeaderPeers(trustedProxies: trustedProxies)
        settings.requiresAuthentication = true
        settings.submission = true
        settings.plaintextAuthentication = .loopbackOnly
        settings.chaos = nil
        return settings
    }
}
