import CustomDomains
import Storage

/// Mail.td's mailboxes on custom domains (``CustomDomainMailboxes``): the accounts of `mailbox_accounts`, a Pro user's
/// by its `owner_id`. The claims ask it before deleting a Pro user's domain, and owners' inboxes are not made at an
/// address one of these has.
public struct MailboxDomainMailboxes: CustomDomainMailboxes {
    let database: any SQLDatabase

    /// - Parameter database: the database holding `mailbox_accounts`.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Pro users'.
    public var holderKind: DomainHolder.Kind { .proUser }

    /// Whether an account has `address`, whoever owns it.
    public func hasMailbox(at address: String) async throws -> Bool {
        try await MailboxStore(database: database).addressExists(address)
    }

    /// Whether the Pro user `holderID` owns an account on `domain`.
    public func hasMailboxes(holderID: String, on domain: String, connection: any SQLConnection) throws -> Bool {
        // Domain names are letters, digits, dots and hyphens: nothing in one is a LIKE wildcard.
        try !connection.query(
            "SELECT 1 FROM mailbox_accounts WHERE owner_id = ? AND address LIKE ?", [.text(holderID), .text("%@" + domain)]
        ).isEmpty
    }
}
