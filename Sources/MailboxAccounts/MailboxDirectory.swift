import Directory
import Storage

/// The mailbox surface's side of the directory: an address on a mailbox domain (public or Pro-only) is local when
/// a mailbox account has it, with that account's quota.
public struct MailboxDirectory: AccountDirectory {
    let store: MailboxStore
    let domains: Set<String>

    /// - Parameters:
    ///   - database: the database holding `mailbox_accounts`.
    ///   - domains: the public and Pro-only mailbox domains.
    public init(database: any SQLDatabase, domains: [String]) {
        self.store = MailboxStore(database: database)
        self.domains = Set(domains.map { $0.lowercased() })
    }

    /// Whether `domain` is a mailbox domain.
    public func serves(domain: String) -> Bool {
        domains.contains(domain.lowercased())
    }

    /// Local when a mailbox account has the address; unknown on a mailbox domain otherwise; foreign elsewhere.
    /// - Throws: storage errors.
    public func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        guard let quota = try await store.quota(address: parts.text) else { return .unknown }
        return .local(Recipient(address: parts.text, quota: quota))
    }
}
