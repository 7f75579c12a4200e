/// One domain, one holder: each surface whose users add domains of their own (Mail.td's Pro domains, owners' domains
/// for agent inboxes) says through this port whether it holds one, pending or verified, and refuses a domain another
/// surface holds, without reading that surface's tables.
public protocol CustomDomainClaims: Sendable {
    /// Whether `domain` (lower-cased) is held here.
    /// - Throws: storage errors.
    func holds(domain: String) async throws -> Bool
}
