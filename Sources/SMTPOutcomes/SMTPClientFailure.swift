/// Why the SMTP client ended a recipient's attempt without a server reply that decided it. ``reply`` gives Postern's
/// own account in a reply's shape for display; decisions switch on the case.
public enum SMTPClientFailure: Sendable, Equatable, CustomStringConvertible {
    /// No connection, or it broke: the reason (`cannot connect to mx.example.com: connection refused`, `mx closed the
    /// connection`, too many deliveries queued on this server).
    case connect(String)
    /// TLS could not be had as the policy requires: not offered, refused, a failed handshake, data injected after
    /// `220` to `STARTTLS`.
    case tls(String)
    /// Authentication to a relay was refused or impossible (no mechanism, not over TLS).
    case authentication(String)
    /// The server did not speak SMTP: a malformed reply, a reply when none was due.
    case protocolViolation(String)
    /// The server did not answer in time.
    case timeout
    /// The client refused to send it: why, and about which address when it is about one.
    case refused(Refusal, address: AddressRole?)
    /// The session ended before the recipient's turn came.
    case notAttempted

    /// What the client refuses to send.
    public enum Refusal: Sendable, Equatable {
        /// An address with controls, spaces or angle brackets, over 256 bytes, or without `@`.
        case invalidAddress
        /// A UTF-8 address to a server without `SMTPUTF8`.
        case utf8NotSupported
        /// A message over the server's `SIZE` limit, in bytes.
        case messageTooLarge(limit: Int)
    }

    /// Whether the failure is permanent (a local refusal: the same message would be refused again) rather than for
    /// now.
    public var isPermanent: Bool {
        if case .refused = self { return true }
        return false
    }

    /// Postern's account of the failure as a reply: `451 4.4.1` for the connection, `451 4.7.0` for TLS and
    /// authentication, `451 4.4.2` for a timeout, `451 4.5.0` for protocol errors; a refusal `553 5.1.7` (a bad
    /// sender address), `553 5.1.3` (a bad recipient address), `553 5.6.7` (UTF-8), `552 5.3.4` (size).
    public var reply: SMTPReply {
        switch self {
        case .connect(let why): return SMTPReply(451, (4, 4, 1), why)
        case .tls(let why): return SMTPReply(451, (4, 7, 0), why)
        case .authentication(let why): return SMTPReply(451, (4, 7, 0), why)
        case .protocolViolation(let why): return SMTPReply(451, (4, 5, 0), why)
        case .timeout:
            return SMTPReply(451, (4, 4, 2), "timed out waiting for the server")
        case .notAttempted: return SMTPReply(451, (4, 4, 1), "not attempted")
        case .refused(.invalidAddress, let role):
            return role == .sender
                ? SMTPReply(553, (5, 1, 7), "invalid sender address")
                : SMTPReply(553, (5, 1, 3), "invalid recipient address")
        case .refused(.utf8NotSupported, _):
            return SMTPReply(553, (5, 6, 7), "the server does not accept UTF-8 addresses (SMTPUTF8)")
        case .refused(.messageTooLarge(let limit), _):
            return SMTPReply(552, (5, 3, 4), "message size exceeds the server's limit of \(limit) bytes")
        }
    }

    /// The failure on one line, as ``reply`` shows it.
    public var description: String { reply.description }
}
