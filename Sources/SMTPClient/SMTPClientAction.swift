/// What the driver does for the session machine, in the order given.
public enum SMTPClientAction: Sendable, Equatable {
    /// Write these bytes; each write must make progress within `timeout`.
    case send([UInt8], timeout: Duration)
    /// Start the TLS handshake on the connection now (the server said `220` to `STARTTLS`), then report
    /// ``SMTPClientSession/tlsEstablished()`` or ``SMTPClientSession/connectionFailed(_:)``.
    case startTLS
    /// Read until the machine has a reply, giving up after `timeout` with ``SMTPClientSession/timedOut()``.
    case awaitReply(timeout: Duration)
    /// Close the connection: the session is over and ``SMTPClientSession/results`` final.
    case close
}
