import Directory

/// The account a request's principal opens: its id (the JMAP accountId) and its mailbox's address.
public struct JMAPAccount: Sendable, Equatable {
    public let id: String
    public let address: String
    /// Bytes its mail may take.
    public let quota: Int64
    public let name: String

    public init(id: String, address: String, quota: Int64) {
        self.id = id
        self.address = address
        self.quota = quota
        self.name = String(address.split(separator: "@").first ?? "")
    }

    /// The account `principal` opens.
    init(_ principal: Principal) {
        self.init(id: principal.accountID, address: principal.mailbox.address, quota: principal.mailbox.quota)
    }
}
