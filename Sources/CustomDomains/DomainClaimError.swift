/// Why a domain could not be claimed, verified or deleted; each surface answers it in its own shape (Mail.td's error
/// codes, the owner pages' words).
public enum DomainClaimError: Error, Equatable, Sendable {
    /// Not a domain name (DNS syntax, at least two labels).
    case invalidDomain
    /// Someone holds it verified (on either surface), this server serves it itself, or the holder claims it already.
    case taken
    /// The holder has as many claims as its limit allows.
    case limitReached
    /// The claim stayed pending past the verification window: it is deleted, and may be made again.
    case expired
    /// Mailboxes of the holder are still on the domain: it cannot be deleted until they are gone.
    case inUse
}
