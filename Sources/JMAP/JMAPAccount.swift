import Directory

/// The account a request's principal opens: its id (the JMAP accountId) and its mailbox's address.
public struct JMAPAccount: Sendable, Equatable {
    public let id: String
    public let address: String
    /// Bytes its mail may take.
    public let quota: Int64
    public let name: String
    /// What the request may do there (an OAuth grant's scopes; both otherwise).
    public let permissions: MailPermissions
    /// Whether a method's `accountId` may be left out (the OAuth path).
    public let impliesAccountID: Bool
    /// Who acts for the owner, when the request came with a delegated access token (token exchange).
    public let delegation: Delegation?

    public init(
        id: String, address: String, quota: Int64, permissions: MailPermissions = .all, impliesAccountID: Bool = false,
        delegation: Delegation? = nil
    ) {
        self.id = id
        self.address = address
        self.quota = quota
        self.name = String(address.split(separator: "@").first ?? "")
        self.permissions = permissions
        self.impliesAccountID = impliesAccountID
        self.delegation = delegation
    }

    /// The account `principal` opens.
    init(_ principal: Principal) {
        self.init(
            id: principal.accountID, address: principal.mailbox.address, quota: principal.mailbox.quota,
            permissions: principal.permissions, impliesAccountID: principal.impliesAccountID,
            delegation: principal.delegation)
    }
}
