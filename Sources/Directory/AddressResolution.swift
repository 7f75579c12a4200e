/// What an address is to this server.
public enum AddressResolution: Sendable, Equatable {
    /// A local mailbox: the lower-cased address and its quota in bytes.
    case local(Recipient)
    /// On a local domain, but nobody has it (SMTP 550 5.1.1).
    case unknown
    /// On a domain this server does not serve (SMTP 550 5.7.1: no relay).
    case foreign
}
