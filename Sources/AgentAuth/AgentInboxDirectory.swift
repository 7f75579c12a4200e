import CustomDomains
import Directory
import EmailAddresses

/// The agent surface's side of the directory: `<username>@<inbox domain>` is local while the agent named
/// `username` is live (not revoked), and so is an address on an owner's custom domain while a live agent is named by
/// the whole address and the owner who holds that inbox holds the domain verified (an inbox left on a domain its
/// owner no longer holds receives nothing and cannot authenticate or send); every agent inbox has the same quota.
public struct AgentInboxDirectory: AccountDirectory {
    let accounts: AgentAccountStore
    let claims: CustomDomains
    let domain: String
    let quota: Int64

    /// - Parameters:
    ///   - accounts: the `agent_accounts` table.
    ///   - claims: who holds which custom domain verified: the runtime's one model (a command's own).
    ///   - domain: the agent inbox domain.
    ///   - quota: bytes an agent inbox may hold.
    public init(accounts: AgentAccountStore, claims: CustomDomains, domain: String, quota: Int64) {
        self.accounts = accounts
        self.claims = claims
        self.domain = EmailDomain.key(domain)
        self.quota = quota
    }

    /// Whether `domain` is the agent inbox domain.
    public func serves(domain: String) -> Bool {
        EmailDomain.key(domain) == self.domain
    }

    /// Local when the username is a live agent's, or, off the agent domain, the whole address is a live agent's whose
    /// owner holds the domain verified; unknown on the agent domain and on a domain an owner holds verified otherwise
    /// (SMTP answers 550 5.1.1 for it); foreign elsewhere.
    /// - Throws: storage errors.
    public func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address) else { return .foreign }
        guard let username = AgentInbox.username(of: parts, domain: domain) else {
            // An inbox on an owner's custom domain (AgentOwnedInboxes): its username is the whole address.
            guard case .owner(let owner)? = try await claims.verifiedClaim(on: parts.domain)?.holder else {
                return .foreign
            }
            let held = try await accounts.isLiveInbox(username: parts.text, ownerID: owner)
            return held ? .local(Recipient(address: parts.text, quota: quota)) : .unknown
        }
        guard try await accounts.isLive(username: username) else { return .unknown }
        return .local(Recipient(address: parts.text, quota: quota))
    }
}
