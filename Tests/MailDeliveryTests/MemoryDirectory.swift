import Directory

/// Accounts held in memory: the local domains and each mailbox's quota, as any directory would answer for them;
/// with `failing`, every lookup throws as storage that cannot be read would.
struct MemoryDirectory: AccountDirectory {
    struct Unreadable: Error {}

    let domains: Set<String>
    let quotas: [String: Int64]
    var failing = false

    func serves(domain: String) -> Bool { domains.contains(domain.lowercased()) }

    func resolve(_ address: String) async throws -> AddressResolution {
        if failing { throw Unreadable() }
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        return quotas[parts.text].map { .local(Recipient(address: parts.text, quota: $0)) } ?? .unknown
    }
}
