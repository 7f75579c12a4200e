import CustomDomains
import Storage

/// The agent inboxes owners make on their custom domains, as ``CustomDomainMailboxes``: an inbox there is the agent
/// account named by its whole address (`agent_accounts`), the owner's through `owner_inboxes`. The claims ask it
/// before deleting an owner's domain, and Mail.td makes no account at an address one of these has.
public struct AgentDomainMailboxes: CustomDomainMailboxes {
    let database: any SQLDatabase

    /// - Parameter database: the database holding `agent_accounts` and `owner_inboxes`.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Owners'.
    public var holderKind: DomainHolder.Kind { .owner }

    /// Whether an agent account is named by the whole address, revoked or not (its mail stays under it).
    public func hasMailbox(at address: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query("SELECT 1 FROM agent_accounts WHERE username = ?", [.text(address)]).isEmpty
        }
    }

    /// Whether the owner `holderID` holds a live inbox on `domain`.
    public func hasMailboxes(holderID: String, on domain: String, connection: any SQLConnection) throws -> Bool {
        // Domain names are letters, digits, dots and hyphens: nothing in one is a LIKE wildcard.
        try !connection.query(
            """
            SELECT 1 FROM owner_inboxes o JOIN agent_accounts a ON a.id = o.agent_id AND a.revoked_at IS NULL
            WHERE o.owner_id = ? AND a.username LIKE ?
            """, [.text(holderID), .text("%@" + domain)]
        ).isEmpty
    }
}
