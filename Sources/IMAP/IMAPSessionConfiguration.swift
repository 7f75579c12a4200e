import BufferBudget
import MailDoor

/// What a session offers: its limits, its extensions, its SASL mechanisms and where TLS stands. The driver that
/// serves IMAP fills it per connection (a loopback client, an implicit-TLS port).
public struct IMAPSessionConfiguration: Sendable {

    /// Every bound of the session.
    public var limits = IMAPLimits()
    /// The extensions advertised after `IMAP4rev1 IMAP4rev2` and `LITERAL+`/`LITERAL-` (which the literal limits
    /// choose). Advertise only what the driver answers; the machine itself answers `ENABLE`, `IDLE`, `ID`, `SASL-IR`,
    /// `STARTTLS` and `LITERAL-`.
    public var extensions: [String] = [
        "ENABLE", "IDLE", "ID", "SASL-IR", "NAMESPACE", "UNSELECT", "UIDPLUS", "MOVE", "ESEARCH", "SPECIAL-USE",
        "CREATE-SPECIAL-USE", "LIST-EXTENDED", "LIST-STATUS", "STATUS=SIZE", "SORT", "SORT=DISPLAY", "ESORT",
        "THREAD=ORDEREDSUBJECT",
    ]
    /// The SASL mechanisms offered (`AUTH=...`), in upper case; the driver runs each.
    public var mechanisms: [String] = ["PLAIN", "LOGIN"]
    /// Whether `STARTTLS` can be offered (the listener has a certificate and the connection is not TLS already).
    public var startTLSAvailable = false
    /// Whether the connection is TLS already (the implicit-TLS port).
    public var isSecure = false
    /// Whether passwords and tokens may be sent without TLS (a loopback client); otherwise `LOGINDISABLED` until
    /// `STARTTLS`.
    public var allowsPlaintextAuthentication = false
    /// What the literals of every session of the process share (``BufferBudget``); nil for no bound but the limits.
    public var buffers: BufferBudget?

    /// The defaults: nothing secure, no TLS to offer, plaintext sign-in refused.
    public init() {}

    /// The literal extension the limits amount to: `LITERAL+` when a non-synchronizing literal may be as large as
    /// any literal, `LITERAL-` (RFC 7888) otherwise.
    var literalCapability: String {
        limits.maxNonSynchronizingLiteralBytes >= limits.maxLiteralBytes ? "LITERAL+" : "LITERAL-"
    }
}

extension IMAPSessionConfiguration: MailDoorSignInSettings {}
