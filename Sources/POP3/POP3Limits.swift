import MailDoor

/// Every limit of a POP3 session in one place (RFC 1939, RFC 2449). A line past one is read to its end without being
/// kept and answered `-ERR`.
public struct POP3Limits: Sendable, Equatable {
    /// The most bytes of a command line, CRLF excluded. RFC 2449 §4 sets 255 with the CRLF; clients' long `AUTH`
    /// initial responses are why the default allows more. Default 510.
    public var maxLineBytes = 510
    /// The most bytes of one SASL response line, or of an `AUTH` command with its initial response (an OAuth bearer
    /// token is longer than any command). Read before sign-in, so as small as the tokens allow: default 16,384 (an
    /// OAuth token in base64 is under 2 KiB).
    public var maxSASLLineBytes = 16_384
    /// The most commands answered from buffered input before the session hands the turn back to its driver
    /// (``POP3Session/hasBufferedInput``). Default 64.
    public var maxPipelinedCommands = 64
    /// The most bytes received and not yet read as commands; the driver stops reading while
    /// ``POP3Session/wantsInput`` is false. Default 64 KiB.
    public var maxBufferedInputBytes = 64 * 1024
    /// How long a session may stay silent before the server closes it, with no response and no message removed
    /// (RFC 1939 §3: at least 10 minutes). Default 10 minutes.
    public var autologout: Duration = .seconds(10 * 60)
    /// How long a session that has not signed in (the authorization state) may stay silent before the server closes
    /// it, with no response. Default 60 s, IMAP's (``MailDoorTimeouts/unauthenticated``): a connection nobody signs in
    /// on is not kept for the signed-in session's 10 minutes.
    public var unauthenticatedTimeout: Duration = MailDoorTimeouts.unauthenticated
    /// How many failed sign-ins one connection may make before it is closed. Default 3.
    public var maxFailedSignIns = 3

    /// The defaults.
    public init() {}
}
