import EmailAddresses

/// A local mailbox as delivery sees it: its address, how much its mail may take, and who holds it.
public struct Recipient: Sendable, Hashable {
    /// The address, normalised (``EmailAddress/key(_:)``).
    public let address: String
    /// Bytes its mail may take.
    public let quota: Int64
    /// The account that has the address, when the directory knows one (nil: a custom domain's catch-all address).
    public let accountID: String?
    /// Who holds the mailbox (a Mail.td Pro user: its account's, or its verified domain's); nil for a mailbox no one
    /// holds. Delivery passes it to the store, whose webhook queue hears of the message under it.
    public let holderID: String?

    /// - Parameters:
    ///   - address: the mailbox's address; kept normalised.
    ///   - quota: bytes its mail may take.
    ///   - accountID: the account with the address, if the directory has accounts.
    ///   - holderID: the user who holds the mailbox, if any.
    public init(address: String, quota: Int64, accountID: String? = nil, holderID: String? = nil) {
        self.address = EmailAddress.key(address)
        self.quota = quota
        self.accountID = accountID
        self.holderID = holderID
    }
}
