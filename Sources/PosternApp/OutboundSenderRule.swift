import AgentAuth
import CustomDomains
import Directory
import MailboxAccounts
import OutboundQueue
import Storage

/// Who may send mail outside this server (`POSTERN_OUTBOUND_SENDERS`), asked by the outbound queue for each
/// submission's sender before any outside recipient is queued; a sender refused keeps those recipients in the outbox.
///
/// In ``Mode/owned`` (the default) only inboxes someone answers for may reach outside, so that a cheap identity (an
/// agent that solved a proof of work) cannot become a spam source:
/// - an agent inbox on the agent domain while an owner holds it (linked with its API key or made on the owner pages);
/// - an address on a verified custom domain while its holder is the one who holds the domain verified: an owner's agent
///   inbox there (the owner holds the inbox), a Mail.td Pro user's account or catch-all address there (the Pro user's
///   directory says so); a mailbox left from an earlier holder of the domain may not.
///
/// Everyone else may not: anonymous agents, Mail.td's free accounts, addresses on domains this server does not hold.
/// In ``Mode/all`` every sender may. Every answer is read fresh: an inbox unlinked or a domain lost stops at once.
public struct OutboundSenderRule: Sendable {
    /// `POSTERN_OUTBOUND_SENDERS`, read by the queue's configuration.
    public typealias Mode = OutboundQueueConfiguration.Senders

    /// Who may send outside.
    public let mode: Mode
    let agentDomain: String
    let agents: AgentAccountStore
    let claims: CustomDomains
    let mailboxes: MailboxDirectory

    /// - Parameters:
    ///   - mode: `owned` or `all`.
    ///   - database: the database holding the agent accounts, owners' holds, custom-domain claims and mailboxes.
    ///   - agentDomain: the agent inbox domain (`POSTERN_AGENT_INBOX_DOMAIN`).
    ///   - mailboxDomains: Mail.td's public and Pro-only mailbox domains.
    public init(mode: Mode, database: any SQLDatabase, agentDomain: String, mailboxDomains: [String]) {
        self.mode = mode
        self.agentDomain = agentDomain.lowercased()
        self.agents = AgentAccountStore(database: database)
        self.claims = CustomDomains(database: database)
        self.mailboxes = MailboxDirectory(database: database, domains: mailboxDomains)
    }

    /// Whether mail from `sender` (a bare address, any case) may go to recipients outside this server.
    /// - Throws: storage errors (the queue keeps the message and asks again, never sends on an error).
    public func mayReachOutside(_ sender: String) async throws -> Bool {
        guard mode == .owned else { return true }
        guard let address = AddressParts(sender) else { return false }
        if let username = AgentInbox.username(of: address, domain: agentDomain) {
            return try await agents.holder(ofLiveInbox: username) != nil
        }
        switch try await claims.verifiedClaim(on: address.domain)?.holder {
        case .owner(let owner)?:
            return try await agents.holder(ofLiveInbox: address.text) == owner
        case .proUser(let user)?:
            guard case .local(let recipient) = try await mailboxes.resolve(address.text) else { return false }
            return recipient.holderID == user
        case nil:
            return false
        }
    }
}
