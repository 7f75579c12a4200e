/// One domain, one verified holder: each surface whose users claim domains of their own (Mail.td's Pro domains,
/// owners' domains for agent inboxes) answers through this port whether it holds one verified, and gives up its
/// pending claims on a domain another surface has just verified, without anyone reading that surface's tables.
/// Pending claims block nobody: several may name one domain, on either surface; the first to prove its own TXT token
/// wins.
public protocol CustomDomainClaims: Sendable {
    /// Whether a claim here holds `domain` (lower-cased) verified.
    /// - Throws: storage errors.
    func holdsVerified(domain: String) async throws -> Bool

    /// Deletes every pending claim here on `domain` (lower-cased): a claim on another surface was verified.
    /// - Throws: storage errors.
    func dropPending(domain: String) async throws

    /// Whether an account or inbox here has `address` (lower-cased), live or left from an earlier holder of its
    /// domain. Mail is kept by address: the other surface must not make a second mailbox at it, which would read this
    /// one's mail (and this one its).
    /// - Throws: storage errors.
    func hasAddress(_ address: String) async throws -> Bool
}
