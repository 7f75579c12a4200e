import MailDoor

/// What a POP3 session offers: its limits, its SASL mechanisms and where TLS stands.
public struct POP3SessionConfiguration: Sendable, Equatable {
    public var limits = POP3Limits()
    /// The SASL mechanisms offered (`SASL ...` in CAPA), in upper case; the driver runs each.
    public var mechanisms: [String] = ["PLAIN", "LOGIN"]
    /// Whether `STLS` can be offered.
    public var startTLSAvailable = false
    /// Whether the connection is TLS already (the implicit-TLS port).
    public var isSecure = false
    /// Whether passwords and tokens may be sent without TLS (a loopback client).
    public var allowsPlaintextAuthentication = false

    /// The defaults: nothing secure, no TLS to offer, plaintext sign-in refused.
    public init() {}
}

extension POP3SessionConfiguration: MailDoorSignInSettings {}
