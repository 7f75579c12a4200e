import ServerTLS

/// The transport under an SMTP session on a listener with a certificate: plaintext until the session answers
/// `STARTTLS` with `220`, then TLS (RFC 3207), through ServerTLS's one transport, which IMAP's STARTTLS and its
/// implicit-TLS port share.
typealias SMTPTransportMachine = TLSTransportMachine<SMTPSessionMachine>

extension SMTPSessionMachine: TLSUpgradableMachine {}
