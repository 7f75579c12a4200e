import Directory
import EmailAddresses
import Foundation
import MailStore
import Storage

/// The agent surface's side of ``OwnedInboxes``: owners hold agent accounts through `owner_inboxes` (migration 0016);
/// an inbox is the owner's while its agent is live (not revoked) and the link stands.
public struct AgentOwnedInboxes: OwnedInboxes {
    let accounts: AgentAccountStore
    let domain: String
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - accounts: the `agent_accounts` table.
    ///   - domain: the agent inbox domain (``AgentInbox``).
    ///   - clock: Unix seconds.
    public init(accounts: AgentAccountStore, domain: String, clock: @escaping @Sendable () -> Int64) {
        self.accounts = accounts
        self.domain = EmailDomain.key(domain)
        self.clock = clock
    }

    private var database: any SQLDatabase { accounts.database }

    private static let select = """
        SELECT a.id, a.username, a.created_at, o.linked_at FROM owner_inboxes o
        JOIN agent_accounts a ON a.id = o.agent_id AND a.revoked_at IS NULL
        """

    public func inboxes(ownerID: String) async throws -> [OwnedInbox] {
        let domain = domain
        return try await database.read { connection in
            try connection.query(Self.select + " WHERE o.owner_id = ? ORDER BY o.linked_at, a.id", [.text(ownerID)])
                .compactMap { Self.inbox($0, domain) }
        }
    }

    public func inboxes(accountIDs: [String]) async throws -> [OwnedInbox] {
        let domain = domain
        return try await database.read { connection in
            try accountIDs.compactMap { id in
                try connection.query(
                    """
                    SELECT a.id, a.username, a.created_at, COALESCE(o.linked_at, a.created_at) AS linked_at
                    FROM agent_accounts a LEFT JOIN owner_inboxes o ON o.agent_id = a.id
                    WHERE a.id = ? AND a.revoked_at IS NULL
                    """, [.text(id.lowercased())]
                ).first.flatMap { Self.inbox($0, domain) }
            }
        }
    }

    public func inbox(accountID: String, ownerID: String) async throws -> OwnedInbox? {
        let domain = domain
        return try await database.read { connection in
            try Self.inbox(accountID: accountID, ownerID: ownerID, connection, domain)
        }
    }

    public func createInbox(username localPart: String, domain custom: String?, ownerID: String) async throws
        -> (inbox: OwnedInbox, apiKey: String)
    {
        // The reserved names are role addresses of the agent domain, and its short names are few; on their own domain an
        // owner may want both (`support@`, `bot@`).
        let shortest = custom == nil ? AgentUsername.minimumLength : AgentUsername.minimumLengthOnOwnDomain
        switch AgentUsername.check(localPart, minimumLength: shortest) {
        case .invalid?: throw OwnedInboxError.invalidUsername
        case .reserved? where custom == nil: throw OwnedInboxError.reservedUsername
        case .reserved?, nil: break
        }
        let username = custom.map { localPart + "@" + EmailDomain.key($0) } ?? localPart
        let id = UUID().uuidString.lowercased()
        let key = AgentAPIKey.generate()
        let now = clock()
        do {
            _ = try await database.write { connection in
                try connection.transaction {
                    try connection.run(
                        "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES (?, ?, ?, ?)",
                        [.text(id), .text(username), .blob(AgentAPIKey.digest(key)), .integer(now)])
                    try connection.run(
                        "INSERT INTO owner_inboxes (agent_id, owner_id, linked_at) VALUES (?, ?, ?)",
                        [.text(id), .text(ownerID), .integer(now)])
                }
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw OwnedInboxError.usernameTaken
        }
        let inbox = OwnedInbox(
            accountID: id, username: username, address: AgentInbox.address(username: username, domain: domain),
            linkedAt: now, activatedAt: now)
        return (inbox, key)
    }

    public func link(apiKey: String, ownerID: String) async throws -> OwnedInbox {
        guard apiKey.hasPrefix(AgentAPIKey.prefix), apiKey.utf8.count <= 256,
            let account = try await accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(apiKey))
        else { throw OwnedInboxError.unknownKey }
        let now = clock()
        let domain = domain
        // The primary key on agent_id decides a race between two owners: the second insert does nothing.
        let linked = try await database.write { connection in
            try connection.run(
                "INSERT INTO owner_inboxes (agent_id, owner_id, linked_at) VALUES (?, ?, ?) ON CONFLICT (agent_id) DO NOTHING",
                [.text(account.id), .text(ownerID), .integer(now)])
            return try Self.inbox(accountID: account.id, ownerID: ownerID, connection, domain)
        }
        guard let linked else { throw OwnedInboxError.heldByAnother }
        return linked
    }

    /// The old key stops at once, and so do the sessions it opened (``AgentAccount/acceptsSession(issuedAt:)``).
    public func rotateKey(accountID: String, ownerID: String) async throws -> String? {
        let key = AgentAPIKey.generate()
        let now = clock()
        let changed = try await database.write { connection in
            try connection.run(
                """
                UPDATE agent_accounts SET api_key_digest = ?, key_rotated_at = ? WHERE id = ? AND revoked_at IS NULL
                AND id IN (SELECT agent_id FROM owner_inboxes WHERE owner_id = ?)
                """,
                [.blob(AgentAPIKey.digest(key)), .integer(now), .text(accountID), .text(ownerID)])
        }
        return changed > 0 ? key : nil
    }

    /// Removes the `owner_inboxes` row only: the account, its key, sessions and mail stay.
    public func unlink(accountID: String, ownerID: String) async throws -> OwnedInbox? {
        try await change(accountID: accountID, ownerID: ownerID) { _, connection in
            try connection.run(
                "DELETE FROM owner_inboxes WHERE agent_id = ? AND owner_id = ?", [.text(accountID), .text(ownerID)])
        }
    }

    /// Deletes the account row (its link goes with it; a grant naming it as default inbox keeps none) and, in the same
    /// transaction, the mail stored under its address with that address's change log and state, as a mailbox
    /// account's deletion does (migration 0022), and its uploaded JMAP blobs (``MailStore/deleteMailbox(_:_:)``): a
    /// later inbox of the same name starts empty, from state 0, and can read nothing of this one.
    public func delete(accountID: String, ownerID: String) async throws -> OwnedInbox? {
        try await change(accountID: accountID, ownerID: ownerID) { inbox, connection in
            try MailStore.deleteMailbox(inbox.address, connection)
            try connection.run("DELETE FROM agent_accounts WHERE id = ?", [.text(accountID)])
        }
    }

    /// Reads the owner's inbox `accountID` and makes `change` to it, in one transaction: the inbox as it was, or nil
    /// (nothing changed) when the owner holds no such inbox.
    private func change(
        accountID: String, ownerID: String,
        _ change: @escaping @Sendable (OwnedInbox, any SQLConnection) throws -> Void
    ) async throws -> OwnedInbox? {
        let domain = domain
        return try await database.write { connection in
            try connection.transaction {
                guard let inbox = try Self.inbox(accountID: accountID, ownerID: ownerID, connection, domain) else {
                    return nil
                }
                try change(inbox, connection)
                return inbox
            }
        }
    }

    private static func inbox(accountID: String, ownerID: String, _ connection: any SQLConnection, _ domain: String)
        throws -> OwnedInbox?
    {
        try connection.query(Self.select + " WHERE o.owner_id = ? AND a.id = ?", [.text(ownerID), .text(accountID)])
            .first.flatMap { inbox($0, domain) }
    }

    private static func inbox(_ row: SQLRow, _ domain: String) -> OwnedInbox? {
        guard let id = row.text("id"), let username = row.text("username"), let created = row.int("created_at"),
            let linked = row.int("linked_at")
        else { return nil }
        return OwnedInbox(
            accountID: id, username: username, address: AgentInbox.address(username: username, domain: domain),
            linkedAt: linked, activatedAt: created)
    }
}
