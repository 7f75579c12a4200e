import Directory
import Storage

/// The client credentials grants of migration 0069 (`oauth_client_grants`): one row per token response, found by its
/// access token's `jti`, revoked by the one revocation path of the store (the client's own RFC 7009 request, its
/// deletion), and read back by the resource side and introspection through ``record(jti:)`` like an owner's grant.
extension OAuthGrantStore {
    /// Writes the grant of a client credentials token: `jti` its access token, `permissions` and `resource` what it
    /// carries, alive until `expiresAt`; `alongside` (its audit line) with it, both or neither
    /// (``SQLConnection/insert(_:then:)``: on PostgreSQL one statement, one round trip).
    public func issueClientGrant(
        jti: String, clientID: String, permissions: MailPermissions, resource: String, now: Int64, expiresAt: Int64,
        alongside: SQLInsert? = nil
    ) async throws {
        try await database.write(
            Self.clientGrantWrite(
                jti: jti, clientID: clientID, permissions: permissions, resource: resource, now: now,
                expiresAt: expiresAt, alongside: alongside))
    }

    /// Whether ``issueClientGrantQueued(jti:clientID:permissions:resource:now:expiresAt:alongside:completion:)`` is
    /// served: the database queues writes from the calling thread (SQLite's group commit).
    public var queuesWritesFromCallingThread: Bool { database.callingThread != nil }

    /// ``issueClientGrant(jti:clientID:permissions:resource:now:expiresAt:alongside:)`` from an event loop, which does
    /// not wait: the write is queued to the writer's group commit and `completion` called once it committed (nil) or
    /// failed, off the calling thread. Where the database does not queue so (PostgreSQL), `completion` gets `.misuse`.
    public func issueClientGrantQueued(
        jti: String, clientID: String, permissions: MailPermissions, resource: String, now: Int64, expiresAt: Int64,
        alongside: SQLInsert? = nil,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard let database = database.callingThread else {
            return completion(StorageError(.misuse, "this database does not queue writes from the calling thread"))
        }
        database.write(
            Self.clientGrantWrite(
                jti: jti, clientID: clientID, permissions: permissions, resource: resource, now: now,
                expiresAt: expiresAt, alongside: alongside)
        ) { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    /// The write of a client credentials grant, and of `alongside` with it.
    private static func clientGrantWrite(
        jti: String, clientID: String, permissions: MailPermissions, resource: String, now: Int64, expiresAt: Int64,
        alongside: SQLInsert?
    ) -> @Sendable (any SQLConnection) throws -> Void {
        let grant = SQLInsert(
            into: "oauth_client_grants",
            [
                "id": .text(jti), "client_id": .text(clientID), "scope": .text(permissions.scope),
                "resource": .text(resource), "created_at": .integer(now), "expires_at": .integer(expiresAt),
            ])
        return { connection in
            if let alongside { try connection.insert(grant, then: alongside) } else { try connection.insert(grant) }
        }
    }

    /// Revokes the client credentials grant of access token `jti` when it is `clientID`'s and live; the observer (the
    /// instance's cache of live grants) is told its id, the `jti`. False when there was none to revoke.
    @discardableResult
    public func revokeClientGrant(jti: String, clientID: String, now: Int64) async throws -> Bool {
        let done = try await database.write { connection in
            try connection.run(
                "UPDATE oauth_client_grants SET revoked_at = ? WHERE id = ? AND client_id = ? AND revoked_at IS NULL",
                [.integer(now), .text(jti), .text(clientID)]) == 1
        }
        if done { observer?.grantRevoked(jti) }
        return done
    }

    /// The client credentials grant of `jti` with the inboxes its client is bound to now; its id is the `jti`, its
    /// owner the client (the token's `sub`).
    static func clientGrantRecord(jti: String, _ connection: any SQLConnection) throws -> OAuthGrantRecord? {
        // One row per live inbox the client is bound to (one with a null inbox when none is): one round trip.
        let rows = try connection.query(
            """
            SELECT g.client_id, g.scope, g.resource, g.expires_at, g.revoked_at, c.owner_id, a.id AS agent_id
            FROM oauth_client_grants g JOIN oauth_confidential_clients c ON c.client_id = g.client_id
            LEFT JOIN oauth_confidential_client_inboxes i ON i.client_id = g.client_id
            LEFT JOIN agent_accounts a ON a.id = i.agent_id AND a.revoked_at IS NULL
            WHERE g.id = ? ORDER BY a.id
            """, [.text(jti)])
        guard let row = rows.first, let client = row.text("client_id"), let scope = row.text("scope"),
            let resource = row.text("resource"), let expires = row.int("expires_at")
        else { return nil }
        let inboxes = rows.compactMap { $0.text("agent_id") }
        return OAuthGrantRecord(
            grantID: jti, ownerID: client, clientID: client, agentID: inboxes.count == 1 ? inboxes[0] : nil,
            boundAccountID: nil, permissions: MailPermissions(scope: scope), resource: resource,
            grantExpiresAt: expires, tokenExpiresAt: expires, revoked: row.int("revoked_at") != nil,
            clientInboxIDs: inboxes, clientOwnerID: row.text("owner_id"))
    }

    // MARK: - Introspection

    /// A current refresh token as introspection describes it.
    public struct RefreshTokenState: Sendable, Equatable {
        /// Its grant.
        public let grant: OAuthGrant
        /// When it was issued, Unix seconds.
        public let issuedAt: Int64
        /// When it expires, Unix seconds (no later than its grant's end).
        public let expiresAt: Int64
    }

    /// The refresh token `token` when it is current (not superseded), unexpired and of a live grant; nil otherwise.
    /// - Throws: storage errors.
    public func liveRefreshToken(_ token: String, now: Int64) async throws -> RefreshTokenState? {
        let digest = OAuthDigest.of(token)
        return try await database.read { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT r.issued_at, r.expires_at AS token_expires_at, \(Self.grantColumns)
                    FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id
                    WHERE r.token_digest = ? AND r.superseded_at IS NULL AND r.expires_at > ?
                    AND g.revoked_at IS NULL AND g.expires_at > ?
                    """, [.blob(digest), .integer(now), .integer(now)]
                ).first, let grant = Self.grant(row), let issued = row.int("issued_at"),
                let expires = row.int("token_expires_at")
            else { return nil }
            return RefreshTokenState(grant: grant, issuedAt: issued, expiresAt: min(expires, grant.expiresAt))
        }
    }
}
