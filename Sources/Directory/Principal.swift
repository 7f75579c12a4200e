/// Who a request acts as: the account it opens and the mailbox that account reads and sends from. What a mail API
/// serves; how the request proved it (a capability token, and later other bearers) is the authenticator's affair.
public struct Principal: Sendable, Equatable {
    /// The account's id (JMAP's accountId).
    public let accountID: String
    /// The account's mailbox.
    public let mailbox: Recipient

    /// - Parameters:
    ///   - accountID: the account's id.
    ///   - mailbox: the local mailbox it opens.
    public init(accountID: String, mailbox: Recipient) {
        self.accountID = accountID
        self.mailbox = mailbox
    }
}
