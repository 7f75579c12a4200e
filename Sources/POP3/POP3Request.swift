import SASL

/// What a POP3 session asks its driver; until the driver answers, the session reads no further command.
public enum POP3Request: Sendable, Equatable {
    /// `USER` and `PASS`: check them and lock the maildrop. Answer: ``POP3Session/authenticated(_:now:into:)``.
    case login(username: String, password: String)
    /// One client message of an `AUTH` exchange. Answer: ``POP3Session/authenticated(_:now:into:)``.
    case authenticate(SASLStep)
    /// `RETR` or `TOP`: the message's bytes. Answer: ``POP3Session/retrieved(_:now:into:)``.
    case retrieve(POP3Message)
    /// `QUIT` in the transaction state: remove the messages marked deleted, for every door, and release the
    /// maildrop. Answer: ``POP3Session/committed(_:now:into:)``.
    case commitDeletions([POP3Message])
    /// `STLS` was accepted: start the TLS handshake, then call ``POP3Session/tlsEstablished(now:into:)``.
    case startTLS
}

/// The driver's answer to a POP3 sign-in step.
public enum POP3AuthenticationOutcome: Sendable, Equatable {
    /// Signed in, the maildrop locked: its messages, numbered from 1 in this order for the whole session.
    case succeeded(user: String, maildrop: [POP3Message])
    /// The SASL mechanism needs another message.
    case challenge(SASLMessage)
    /// Refused: `[AUTH]` for bad credentials, `[IN-USE]` for a maildrop locked by another session, `[SYS/TEMP]`.
    /// `errorChallenge` is RFC 7628's OAUTHBEARER error, answered by the client before the `-ERR`.
    case failed(POP3ResponseCode, errorChallenge: SASLMessage? = nil)
}
