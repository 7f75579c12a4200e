import CustomDomains
import Directory
import EmailAddresses
import Storage

/// The mailbox surface's side of the directory: an address on a mailbox domain (public or Pro-only) is local when
/// a mailbox account has it, with that account's quota; every address on a Pro user's verified custom domain is local
/// (Mail.td's catch-all), with its account's quota when one exists and `catchAllQuota` otherwise. An account on a
/// custom domain is local only while its own Pro user holds the domain verified: an account left from an earlier
/// holder is not (no mail reaches it, and JMAP does not let it send).
public struct MailboxDirectory: AccountDirectory {
    let store: MailboxStore
    let claims: CustomDomains
    let domains: Set<String>
    let catchAllQuota: Int64

    /// - Parameters:
    ///   - database: the database holding `mailbox_accounts` and the custom-domain claims (``CustomDomains``).
    ///   - domains: the public and Pro-only mailbox domains.
    ///   - catchAllQuota: the quota of an address on a verified custom domain that no account has (Pro's).
    ///   - claims: who holds which custom domain verified: the runtime's one model (a command's own).
    public init(
        database: any SQLDatabase, domains: [String], catchAllQuota: Int64 = MailboxQuotas().pro,
        claims: CustomDomains
    ) {
        self.store = MailboxStore(database: database)
        self.claims = claims
        self.domains = Set(domains.map { EmailDomain.key($0) })
        self.catchAllQuota = catchAllQuota
    }

    /// Whether `domain` is a mailbox domain.
    public func serves(domain: String) -> Bool {
        domains.contains(EmailDomain.key(domain))
    }

    /// Local when a mailbox account has the address on a mailbox domain, or the address is on a verified custom
    /// domain and is no account's or its holder's account; unknown on a mailbox domain otherwise; foreign elsewhere.
    /// - Throws: storage errors.
    public func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address) else { return .foreign }
        if serves(domain: parts.domain) {
            guard let account = try await store.quotaAndOwner(address: parts.text) else { return .unknown }
            return .local(
                Recipient(address: parts.text, quota: account.quota, accountID: account.id, holderID: account.ownerID))
        }
        guard case .proUser(let holder)? = try await claims.verifiedClaim(on: parts.domain)?.holder else {
            return .foreign
        }
        guard let account = try await store.quotaAndOwner(address: parts.text) else {
            return .local(Recipient(address: parts.text, quota: catchAllQuota, holderID: holder))
        }
        guard account.ownerID == holder else { return .foreign }
        return .local(Recipient(address: parts.text, quota: account.quota, accountID: account.id, holderID: holder))
    }
}
