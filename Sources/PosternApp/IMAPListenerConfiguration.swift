/// The IMAP listener (issue 70): whether it runs, where, its per-client cap and the PROXY header, and the
/// implicit-TLS port. It serves the one mail store to mail clients signed in with a Mail.td account's address and
/// password or an agent inbox's address and API key, with `STARTTLS` and SMTP's certificate; a password is taken
/// before TLS only from a loopback client (others see `LOGINDISABLED`).
///
/// ## Configuration keys
/// - `POSTERN_IMAP` (on or off, default off; `config/postern.env` and the test profile turn it on): `listener.enabled`.
/// - `POSTERN_IMAP_HOST` (an address, default the HTTP listen address): `listener.host`.
/// - `POSTERN_IMAP_PORT` (0 to 65535, default 1143): `listener.port`.
/// - `POSTERN_IMAPS_PORT` (0 to 65535, default unset: no implicit-TLS listener): `listener.implicitTLSPort`.
/// - `POSTERN_IMAP_MAX_CONNECTIONS_PER_CLIENT` (integer, 0 for none, default 16): `listener.maxConnectionsPerClient`.
/// - `POSTERN_IMAP_PROXY_PROTOCOL` (on or off, default off; on needs trusted proxies): `listener.proxyProtocol`.
public struct IMAPListenerConfiguration: Sendable, MailDoorConfiguration {
    /// The listener (``MailDoorConfiguration/listener``). Default off, on port 1143.
    public var listener = MailListenerConfiguration(keyPrefix: "POSTERN_IMAP", port: 1143)

    /// `/llms.txt`'s list line for IMAP (the ports when fixed, who signs in with what); empty when it is off.
    func guideLine(baseURL: String) -> String {
        listener.guideLine(
            "IMAP", upgrade: "STARTTLS",
            what: "every folder of a Mail.td account (its password, or an API "
                + "token of the Pro user who owns it), of an agent inbox (its API key) or of an owner's inbox "
                + "(`AUTHENTICATE OAUTHBEARER` or `XOAUTH2` with an access token for \(baseURL)/jmap carrying "
                + "`mail.read`); the same messages as every API here.")
    }
}
