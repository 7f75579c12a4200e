/// The POP3 listener (issue 70): whether it runs, where, its per-client cap and the PROXY header, and the
/// implicit-TLS port, as IMAP's listener has them. It serves the INBOX of the one mail store to the holders IMAP signs
/// in, with the same credentials, and `STLS` with SMTP's certificate; before `STLS` a password is taken only from a
/// loopback client.
///
/// ## Configuration keys
/// - `POSTERN_POP3` (on or off, default off; `make run` and the test profile turn it on): `listener.enabled`.
/// - `POSTERN_POP3_HOST` (an address, default the HTTP listen address): `listener.host`.
/// - `POSTERN_POP3_PORT` (0 to 65535, default 1110): `listener.port`.
/// - `POSTERN_POP3S_PORT` (0 to 65535, default unset: no implicit-TLS listener): `listener.implicitTLSPort`.
/// - `POSTERN_POP3_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16): `listener.maxConnectionsPerClient`.
/// - `POSTERN_POP3_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): `listener.proxyProtocol`.
public struct POP3ListenerConfiguration: Sendable, MailDoorConfiguration {
    /// The listener (``MailDoorConfiguration/listener``). Default off, on port 1110.
    public var listener = MailListenerConfiguration(keyPrefix: "POSTERN_POP3", port: 1110)

    /// `/llms.txt`'s list line for POP3, beside IMAP's (the ports when fixed, who signs in with what); empty when it is
    /// off.
    func guideLine(baseURL: String) -> String {
        listener.guideLine(
            "POP3", upgrade: "STLS",
            what: "the INBOX of the holders IMAP signs in, with the same credentials "
                + "(`USER`/`PASS` or `AUTH PLAIN`; an owner's inbox also `AUTH OAUTHBEARER` or `AUTH XOAUTH2` with an "
                + "access token for \(baseURL)/jmap carrying `mail.read`); `DELE` then `QUIT` deletes for every door.")
    }
}
