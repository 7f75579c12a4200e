/// Who a request acts as: the account it opens, the mailbox that account reads and sends from, and what it may do
/// there. What a mail API serves; how the request proved it (a capability token, an inbox API key, an owner's OAuth
/// access token) is the authenticator's affair.
public struct Principal: Sendable, Equatable {
    /// The account's id (JMAP's accountId).
    public let accountID: String
    /// The account's mailbox.
    public let mailbox: Recipient
    /// What the principal may do: both for API keys and capability tokens, an OAuth grant's scopes otherwise.
    public let permissions: MailPermissions
    /// Whether JMAP method calls may leave `accountId` out (it then means this account): the OAuth path, where the
    /// account is named by `X-Atomic-Account-Id` (`api-docs/oauth-mcp-contract.md` 1.10). A given `accountId`
    /// must still be this one.
    public let impliesAccountID: Bool
    /// Who acts for the inbox's owner, when the request came with a delegated access token (token exchange); nil for
    /// every other credential.
    public let delegation: Delegation?

    /// - Parameters:
    ///   - accountID: the account's id.
    ///   - mailbox: the local mailbox it opens.
    ///   - permissions: what it may do there (default: read and send).
    ///   - impliesAccountID: whether a method's `accountId` may be left out (default false).
    ///   - delegation: who acts for the owner with a delegated token (default none).
    public init(
        accountID: String, mailbox: Recipient, permissions: MailPermissions = .all, impliesAccountID: Bool = false,
        delegation: Delegation? = nil
    ) {
        self.accountID = accountID
        self.mailbox = mailbox
        self.permissions = permissions
        self.impliesAccountID = impliesAccountID
        self.delegation = delegation
    }
}
