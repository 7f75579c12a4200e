import Storage

/// Who holds an inbox beyond its address: the user its mail belongs to (a Mail.td Pro user: the holder of its
/// account, or of its verified custom domain) and the account that has the address. A delivery learns it when it
/// resolves the recipient and passes it along, so that what hangs off a delivery (webhooks) asks no table again.
public struct MailHolder: Sendable, Hashable {
    /// The holder's id.
    public var ownerID: String
    /// The account with the address; nil for an address no account has (a custom domain's catch-all).
    public var accountID: String?

    public init(ownerID: String, accountID: String?) {
        self.ownerID = ownerID
        self.accountID = accountID
    }
}

/// One message stored in the inbox of a recipient with a holder, as the delivery's transaction hands it on.
public struct MailArrival: Sendable, Equatable {
    /// The stored copy's id.
    public var messageID: String
    /// The recipient's address (lower-cased).
    public var address: String
    public var holder: MailHolder
    /// The `From` header as the store keeps it: JSON `[{"name","email"}]`.
    public var fromJSON: String
    public var envelopeFrom: String
    public var subject: String?
    public var preview: String
    /// Bytes of the raw message.
    public var size: Int64
    /// Unix seconds.
    public var receivedAt: Int64
    /// The copy's place in the store-wide arrival order (`received_seq`): what orders copies of one second.
    public var arrivalOrder: Int64
}

/// What hears of mail stored in a held inbox, inside the delivery's own transaction: what it writes commits with the
/// message or not at all (an acknowledged message never lacks its event, and no event outlives a refused message).
public protocol MailArrivalObserver: Sendable {
    /// Called once per stored inbox copy whose recipient has a holder.
    /// - Throws: storage errors; the delivery then fails and stores nothing.
    func arrived(_ arrival: MailArrival, in connection: any SQLConnection) throws
}
