/// The keys a domain's outbound mail is signed with (DKIM), as the claims need them: made when a domain is claimed,
/// and their DNS records shown beside the claim's own. Implemented over the DKIM key table (`DKIMDomainKeys` in
/// DKIMKeys); the composition root gives it to every surface's ``CustomDomains``, so that one call covers owners'
/// and Mail.td Pro users' domains alike.
public protocol DomainSigningKeys: Sendable {
    /// The TXT records of the keys `domain` (lower-cased) signs with now, one per algorithm (RSA first), the keys
    /// made first when the domain has none. Idempotent: a key that exists is kept, and callers racing on one domain
    /// (instances sharing a database) end with the same keys.
    /// - Throws: when the keys cannot be read or made (storage, configuration, key generation).
    func records(for domain: String) async throws -> [SigningKeyRecord]
}
