import Directory
import EmailAddresses
import MailDelivery

/// Who may send mail outside this server (`POSTERN_OUTBOUND_SENDERS`), asked by the outbound queue for each
/// submission's sender before any outside recipient is queued; a sender refused keeps those recipients in the outbox.
///
/// In ``Mode/owned`` (the default) only inboxes someone answers for may reach outside, so that a cheap identity (an
/// agent that solved a proof of work, an owner who signed up themselves) cannot become a spam source:
/// - an agent inbox on the agent domain while an owner the operator made or approved holds it (linked with its API
///   key or made on the owner pages);
/// - an address on a verified custom domain while its holder is the one who holds the domain verified: an owner's agent
///   inbox there (the owner holds the inbox, and the operator made or approved the owner), a Mail.td Pro user's
///   account or catch-all address there (the Pro user's directory says so); a mailbox left from an earlier holder of
///   the domain may not.
///
/// Everyone else may not: anonymous agents, Mail.td's free accounts, addresses on domains this server does not hold,
/// and the inboxes of an owner who signed up at `/owner/sign-up` until the operator approves them
/// (``OutsideSender/awaitingApproval``). In ``Mode/all`` every sender may. Either way an owner's inboxes are answered
/// for by the owner (``OutsideSender/allowed(holder:)`` names them), so the per-owner limit counts them together.
/// Every answer is read fresh: an inbox unlinked, a domain lost or an approval withdrawn stops at once.
public struct OutboundSenderRule: Sendable {
    /// `POSTERN_OUTBOUND_SENDERS`, read by the queue's configuration.
    public typealias Mode = OutboundQueueConfiguration.Senders

    /// Who may send outside.
    public let mode: Mode
    let agentDomain: String
    let accounts: any SenderAccounts

    /// - Parameters:
    ///   - mode: `owned` or `all`.
    ///   - agentDomain: the agent inbox domain (`POSTERN_AGENT_INBOX_DOMAIN`).
    ///   - accounts: who holds which inbox, domain and mailbox, and which owners are approved, read from their stores.
    public init(mode: Mode, agentDomain: String, accounts: any SenderAccounts) {
        self.mode = mode
        self.agentDomain = EmailDomain.key(agentDomain)
        self.accounts = accounts
    }

    /// Whether mail from `sender` (a bare address, any case) may go to recipients outside this server, and who answers
    /// for it.
    /// - Throws: storage errors (the queue keeps the message and asks again, never sends on an error).
    public func standing(of sender: String) async throws -> OutsideSender {
        var holder: Holder?
        if let address = AddressParts(sender) { holder = try await self.holder(of: address) }
        switch (holder, mode) {
        case (.owner(let owner)?, .all): return .allowed(holder: .owner(owner))
        case (.owner(let owner)?, .owned):
            return try await accounts.isApproved(owner: owner)
                ? .allowed(holder: .owner(owner)) : .awaitingApproval
        case (.proUser?, _), (nil, .all): return .allowed(holder: nil)
        case (nil, .owned): return .notAccountable
        }
    }

    /// Whether mail from `sender` may go outside at all (``standing(of:)`` allows it).
    /// - Throws: storage errors.
    public func mayReachOutside(_ sender: String) async throws -> Bool {
        if case .allowed = try await standing(of: sender) { return true }
        return false
    }

    /// Who holds the mailbox at `address` such that they answer for its mail: an owner (the agent inbox's holder, on
    /// the agent domain or on the owner's own verified domain) or a Pro user (an account or the catch-all on their own
    /// verified domain); nil for nobody.
    private func holder(of address: AddressParts) async throws -> Holder? {
        if let username = AgentInbox.username(of: address, domain: agentDomain) {
            return try await accounts.ownerOfLiveAgentInbox(named: username).map(Holder.owner)
        }
        switch try await accounts.verifiedHolder(of: address.domain) {
        case .owner(let owner)?:
            return try await accounts.ownerOfLiveAgentInbox(named: address.text) == owner ? .owner(owner) : nil
        case .proUser(let user)?:
            return try await accounts.mailboxHolder(of: address.text) == user ? .proUser : nil
        case nil:
            return nil
        }
    }

    private enum Holder {
        case owner(String)
        case proUser
    }
}
