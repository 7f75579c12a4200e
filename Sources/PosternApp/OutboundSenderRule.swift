import AgentAuth
import CustomDomains
import Directory
import EmailAddresses
import JMAP
import MailboxAccounts
import OutboundQueue
import Owners
import Storage

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
    let agents: AgentAccountStore
    let claims: CustomDomains
    let mailboxes: MailboxDirectory
    let approvals: OwnerApprovals

    /// - Parameters:
    ///   - mode: `owned` or `all`.
    ///   - database: the database holding the agent accounts, owners and their holds, custom-domain claims and
    ///     mailboxes.
    ///   - agentDomain: the agent inbox domain (`POSTERN_AGENT_INBOX_DOMAIN`).
    ///   - mailboxDomains: Mail.td's public and Pro-only mailbox domains.
    ///   - claims: who holds which custom domain verified (the runtime's one model); default: the claims in
    ///     `database`.
    public init(
        mode: Mode, database: any SQLDatabase, agentDomain: String, mailboxDomains: [String],
        claims: CustomDomains? = nil
    ) {
        let claims = claims ?? CustomDomains(database: database)
        self.mode = mode
        self.agentDomain = EmailDomain.key(agentDomain)
        self.agents = AgentAccountStore(database: database)
        self.claims = claims
        self.mailboxes = MailboxDirectory(database: database, domains: mailboxDomains, claims: claims)
        self.approvals = OwnerApprovals(database: database)
    }

    /// The key an owner is counted under by the limits of scope `holder` (`outbound_submissions.holder`).
    static func holderKey(owner: String) -> String { "owner:" + owner }

    /// Whether mail from `sender` (a bare address, any case) may go to recipients outside this server, and who answers
    /// for it.
    /// - Throws: storage errors (the queue keeps the message and asks again, never sends on an error).
    public func standing(of sender: String) async throws -> OutsideSender {
        var holder: Holder?
        if let address = AddressParts(sender) { holder = try await self.holder(of: address) }
        switch (holder, mode) {
        case (.owner(let owner)?, .all): return .allowed(holder: Self.holderKey(owner: owner))
        case (.owner(let owner)?, .owned):
            return try await approvals.isApproved(ownerID: owner)
                ? .allowed(holder: Self.holderKey(owner: owner)) : .awaitingApproval
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
            return try await agents.holder(ofLiveInbox: username).map(Holder.owner)
        }
        switch try await claims.verifiedClaim(on: address.domain)?.holder {
        case .owner(let owner)?:
            return try await agents.holder(ofLiveInbox: address.text) == owner ? .owner(owner) : nil
        case .proUser(let user)?:
            guard case .local(let recipient) = try await mailboxes.resolve(address.text) else { return nil }
            return recipient.holderID == user ? .proUser : nil
        case nil:
            return nil
        }
    }

    private enum Holder {
        case owner(String)
        case proUser
    }
}
