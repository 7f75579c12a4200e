import Directory
import Storage

/// The delegated tokens and allowed actors of migration 0072: which agent clients each owner lets act for them, the
/// tokens minted for those actors (token exchange, the JWT bearer grant), read back through ``record(jti:)`` like any
/// access token, and their revocation: with the owner's grant (0016's revocation, nothing more to do: the record
/// reads the grant), or when the owner takes an actor's leave away.
extension OAuthGrantStore {
    // MARK: - Allowed actors

    /// What allowing an actor did.
    public enum ActorAllowance: Sendable, Equatable {
        /// The client may act for the owner from now on.
        case allowed
        /// It already could.
        case alreadyAllowed
        /// No such confidential client, or another owner's agent client.
        case unknownClient
    }

    /// Lets confidential client `clientID` (the owner's own agent client, or one the operator made) act for `ownerID`.
    /// - Throws: storage errors.
    public func allowActor(ownerID: String, clientID: String, now: Int64) async throws -> ActorAllowance {
        try await database.write { connection in
            try connection.transaction {
                guard
                    let client = try connection.query(
                        "SELECT owner_id FROM oauth_confidential_clients WHERE client_id = ?", [.text(clientID)]
                    ).first
                else { return .unknownClient }
                if let maker = client.text("owner_id"), maker != ownerID { return .unknownClient }
                if try !connection.query(
                    "SELECT 1 FROM oauth_owner_actors WHERE owner_id = ? AND client_id = ?",
                    [.text(ownerID), .text(clientID)]
                ).isEmpty { return .alreadyAllowed }
                try connection.run(
                    "INSERT INTO oauth_owner_actors (owner_id, client_id, created_at) VALUES (?, ?, ?)",
                    [.text(ownerID), .text(clientID), .integer(now)])
                return .allowed
            }
        }
    }

    /// Takes `clientID`'s leave to act for `ownerID` away, and revokes every live token minted for the owner with that
    /// client among its actors (a sub-agent's token below it included); the observer is told each grant those tokens
    /// are kept under. False when the client was not allowed.
    /// - Throws: storage errors.
    @discardableResult
    public func removeActor(ownerID: String, clientID: String, now: Int64) async throws -> Bool {
        let (removed, grants) = try await database.write { connection in
            try connection.transaction { () throws -> (Bool, Set<String>) in
                let removed = try connection.run(
                    "DELETE FROM oauth_owner_actors WHERE owner_id = ? AND client_id = ?",
                    [.text(ownerID), .text(clientID)]) == 1
                var grants: Set<String> = []
                let rows = try connection.query(
                    """
                    SELECT jti, grant_id, client_id, act_chain FROM oauth_delegated_tokens
                    WHERE owner_id = ? AND revoked_at IS NULL AND expires_at > ?
                    """, [.text(ownerID), .integer(now)])
                for row in rows {
                    guard let jti = row.text("jti"), let grant = row.text("grant_id") else { continue }
                    let chain = (row.text("act_chain") ?? "").split(separator: " ").map(String.init)
                    guard row.text("client_id") == clientID || chain.contains(clientID) else { continue }
                    try connection.run(
                        "UPDATE oauth_delegated_tokens SET revoked_at = ? WHERE jti = ? AND revoked_at IS NULL",
                        [.integer(now), .text(jti)])
                    grants.insert(grant)
                }
                return (removed, grants)
            }
        }
        for grant in grants { observer?.grantRevoked(grant) }
        return removed
    }

    /// Whether `ownerID` lets `clientID` act for them.
    /// - Throws: storage errors.
    public func actorAllowed(ownerID: String, clientID: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                "SELECT 1 FROM oauth_owner_actors WHERE owner_id = ? AND client_id = ?",
                [.text(ownerID), .text(clientID)]
            ).isEmpty
        }
    }

    /// The clients `ownerID` lets act for them, in the order they were allowed.
    /// - Throws: storage errors.
    public func actors(ownerID: String) async throws -> [OAuthOwnerActor] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT a.client_id, c.client_name, c.owner_id, a.created_at
                FROM oauth_owner_actors a JOIN oauth_confidential_clients c ON c.client_id = a.client_id
                WHERE a.owner_id = ? ORDER BY a.created_at, a.client_id
                """, [.text(ownerID)]
            ).compactMap { row in
                guard let id = row.text("client_id"), let name = row.text("client_name"),
                    let at = row.int("created_at")
                else { return nil }
                return OAuthOwnerActor(clientID: id, name: name, ownClient: row.text("owner_id") != nil, allowedAt: at)
            }
        }
    }

    // MARK: - Delegated tokens

    /// Writes `token` (before it is handed out, so that introspection and every resource server know it at once).
    /// - Throws: storage errors.
    public func issueDelegatedToken(_ token: OAuthDelegatedToken, now: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oauth_delegated_tokens (jti, grant_id, parent_jti, owner_id, client_id, act_chain, scope,
                    resource, agent_id, bound_account_id, inbox_ids, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(token.jti), .text(token.grantID), token.parentJTI.map { .text($0) } ?? .null,
                    .text(token.ownerID), .text(token.clientID),
                    .text(token.act?.stored ?? ""), .text(token.permissions.scope), .text(token.resource),
                    token.agentID.map { .text($0) } ?? .null, token.boundAccountID.map { .text($0) } ?? .null,
                    token.inboxIDs.map { .text($0.joined(separator: " ")) } ?? .null, .integer(now),
                    .integer(token.expiresAt),
                ])
        }
    }

    /// Revokes the delegated token `jti` when `clientID` holds it and it is live (RFC 7009 by its holder), with every
    /// token exchanged from it, and from those, in one transaction; the observer is told the grants they are kept
    /// under. False when there was none to revoke. The owner's grant is untouched.
    /// - Throws: storage errors.
    @discardableResult
    public func revokeDelegatedToken(jti: String, clientID: String, now: Int64) async throws -> Bool {
        let grants = try await database.write { connection in
            try connection.transaction { () throws -> Set<String> in
                guard
                    let row = try connection.query(
                        """
                        SELECT grant_id FROM oauth_delegated_tokens
                        WHERE jti = ? AND client_id = ? AND revoked_at IS NULL
                        """,
                        [.text(jti), .text(clientID)]
                    ).first, let grant = row.text("grant_id")
                else { return [] }
                var grants: Set<String> = [grant]
                var pending = [jti]
                try connection.run(
                    "UPDATE oauth_delegated_tokens SET revoked_at = ? WHERE jti = ?", [.integer(now), .text(jti)])
                while let parent = pending.popLast() {
                    for child in try connection.query(
                        "SELECT jti, grant_id FROM oauth_delegated_tokens WHERE parent_jti = ? AND revoked_at IS NULL",
                        [.text(parent)])
                    {
                        guard let childJTI = child.text("jti") else { continue }
                        try connection.run(
                            "UPDATE oauth_delegated_tokens SET revoked_at = ? WHERE jti = ?",
                            [.integer(now), .text(childJTI)])
                        if let childGrant = child.text("grant_id") { grants.insert(childGrant) }
                        pending.append(childJTI)
                    }
                }
                return grants
            }
        }
        for grant in grants { observer?.grantRevoked(grant) }
        return !grants.isEmpty
    }

    /// The delegated token `jti` as a grant record: revoked when it, the owner's grant it descends from or the
    /// assertion-rooted token it descends from is revoked (or that root is gone), its grant id what it dies with.
    static func delegatedRecord(jti: String, _ connection: any SQLConnection) throws -> OAuthGrantRecord? {
        guard
            let row = try connection.query(
                """
                SELECT d.grant_id, d.owner_id, d.client_id, d.act_chain, d.scope, d.resource, d.agent_id,
                    d.bound_account_id, d.inbox_ids, d.expires_at, d.revoked_at, g.id AS root_grant, g.expires_at AS root_expires,
                    g.revoked_at AS root_grant_revoked, r.jti AS root_token, r.revoked_at AS root_token_revoked
                FROM oauth_delegated_tokens d
                LEFT JOIN oauth_grants g ON g.id = d.grant_id
                LEFT JOIN oauth_delegated_tokens r ON r.jti = d.grant_id AND r.jti <> d.jti
                WHERE d.jti = ?
                """, [.text(jti)]
            ).first, let grant = row.text("grant_id"), let owner = row.text("owner_id"),
            let client = row.text("client_id"), let scope = row.text("scope"), let resource = row.text("resource"),
            let expires = row.int("expires_at")
        else { return nil }
        let rooted = row.text("root_grant") != nil || row.text("root_token") != nil || grant == jti
        let revoked =
            !rooted || row.int("revoked_at") != nil || row.int("root_grant_revoked") != nil
            || row.int("root_token_revoked") != nil
        return OAuthGrantRecord(
            grantID: grant, ownerID: owner, clientID: client, agentID: row.text("agent_id"),
            boundAccountID: row.text("bound_account_id"), permissions: MailPermissions(scope: scope),
            resource: resource, grantExpiresAt: row.int("root_expires") ?? expires, tokenExpiresAt: expires,
            revoked: revoked, act: OAuthActorChain(stored: row.text("act_chain") ?? ""),
            actorInboxIDs: row.text("inbox_ids").map { $0.split(separator: " ").map(String.init) })
    }
}
