/// What ``OutboundSenderRule`` reads of the accounts that send, each fact from the store that holds it: who holds a
/// live agent inbox, who holds a custom domain verified, whose mailbox takes an address, and whether an owner is
/// approved. The composition root fills it by forwarding to those stores; the rule alone decides. Every answer is read
/// fresh, so an inbox unlinked, a domain lost or an approval withdrawn counts at once.
public protocol SenderAccounts: Sendable {
    /// The owner who holds the live agent inbox named `username` (linked with its API key or made on the owner pages);
    /// nil when no live inbox has the name or nobody holds it. On the agent domain the name is the local part; on an
    /// owner's custom domain it is the whole address.
    /// - Throws: storage errors.
    func ownerOfLiveAgentInbox(named username: String) async throws -> String?

    /// Who holds `domain` verified as a custom domain; nil when nobody does.
    /// - Throws: storage errors.
    func verifiedHolder(of domain: String) async throws -> SenderDomainHolder?

    /// The id of the Pro user whose mailbox (an account, or the catch-all of their verified domain) takes mail for
    /// `address`; nil when the address is no mailbox's or its account has no Pro user.
    /// - Throws: storage errors.
    func mailboxHolder(of address: String) async throws -> String?

    /// Whether the operator made or approved the owner with id `owner`.
    /// - Throws: storage errors.
    func isApproved(owner: String) async throws -> Bool
}

/// Who holds a custom domain verified, as the sender rule needs it (``SenderAccounts/verifiedHolder(of:)``).
public enum SenderDomainHolder: Sendable, Equatable {
    /// An owner, by id.
    case owner(String)
    /// A Mail.td Pro user, by id.
    case proUser(String)
}
