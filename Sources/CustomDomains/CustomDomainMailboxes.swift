import Storage

/// One surface's mailboxes on custom domains, as the claims' rules need to see them: Mail.td's accounts (its Pro
/// users'), the agent inboxes owners make. Each surface implements it over its own tables; ``CustomDomains`` reads no
/// surface's table itself.
public protocol CustomDomainMailboxes: Sendable {
    /// Whose mailboxes these are.
    var holderKind: DomainHolder.Kind { get }

    /// Whether a mailbox here has `address` (lower-cased), live or left from an earlier holder of its domain. Mail is
    /// kept by address: no other surface may make a second mailbox at it, which would read this one's mail.
    /// - Throws: storage errors.
    func hasMailbox(at address: String) async throws -> Bool

    /// Whether the holder `holderID` has a mailbox here on `domain` (lower-cased), asked on `connection` inside the
    /// transaction that deletes the claim, so that no mailbox is made between the question and the delete.
    /// - Throws: storage errors.
    func hasMailboxes(holderID: String, on domain: String, connection: any SQLConnection) throws -> Bool
}
