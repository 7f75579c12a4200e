/// What a mail door's session offers for signing in, IMAP's (`IMAPSessionConfiguration`) and POP3's
/// (`POP3SessionConfiguration`) alike: the listener sets them for each connection by one policy
/// (MailDoorServer's `MailListener.offerSignIn(to:peer:plaintextOnLoopback:)`).
public protocol MailDoorSignInSettings {
    /// The SASL mechanisms offered, in upper case.
    var mechanisms: [String] { get set }
    /// Whether the upgrade to TLS (`STARTTLS`, `STLS`) can be offered.
    var startTLSAvailable: Bool { get set }
    /// Whether the connection is TLS already (the implicit-TLS port).
    var isSecure: Bool { get set }
    /// Whether passwords and tokens may be sent without TLS.
    var allowsPlaintextAuthentication: Bool { get set }
}
