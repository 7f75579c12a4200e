import AgentAuth
import CustomDomains
import MailboxAccounts
import OutboundQueue
import Owners
import Storage

/// The outbound sender rule's facts (``SenderAccounts``), each forwarded to the store that holds it: agent inboxes to
/// `AgentAccountStore`, custom domains to the runtime's one `CustomDomains`, mailboxes to Mail.td's directory,
/// approvals to `OwnerApprovals`. It decides nothing; ``OutboundSenderRule`` does.
struct SenderAccountStores: SenderAccounts {
    let agents: AgentAccountStore
    let claims: CustomDomains
    let mailboxes: MailboxDirectory
    let approvals: OwnerApprovals

    /// - Parameters:
    ///   - database: the database holding the agent accounts, owners, custom-domain claims and mailboxes.
    ///   - mailboxDomains: Mail.td's public and Pro-only mailbox domains.
    ///   - claims: the runtime's one custom-domain model.
    init(database: any SQLDatabase, mailboxDomains: [String], claims: CustomDomains) {
        agents = AgentAccountStore(database: database)
        self.claims = claims
        mailboxes = MailboxDirectory(database: database, domains: mailboxDomains, claims: claims)
        approvals = OwnerApprovals(database: database)
    }

    func ownerOfLiveAgentInbox(named username: String) async throws -> String? {
        try await agents.holder(ofLiveInbox: username)
    }

    func verifiedHolder(of domain: String) async throws -> SenderDomainHolder? {
        switch try await claims.verifiedClaim(on: domain)?.holder {
        case .owner(let owner)?: .owner(owner)
        case .proUser(let user)?: .proUser(user)
        case nil: nil
        }
    }

    func mailboxHolder(of address: String) async throws -> String? {
        guard case .local(let recipient) = try await mailboxes.resolve(address) else { return nil }
        return recipient.holderID
    }

    func isApproved(owner: String) async throws -> Bool {
        try await approvals.isApproved(ownerID: owner)
    }
}
