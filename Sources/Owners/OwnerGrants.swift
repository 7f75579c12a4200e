import Storage

/// An app an owner connected (an OAuth grant, `oauth_grants` with its `oauth_clients` row), as the owner page lists it.
public struct OwnerGrant: Sendable, Equatable {
    /// The grant's id (lowercase UUID).
    public let id: String
    /// The client's `client_id`.
    public let clientID: String
    /// The client's registered `client_name`, when it gave one.
    public let clientName: String?
    /// The approved scopes, in the order stored (`mail.read`, `mail.send`).
    public let scopes: [String]
    /// The resource (token audience) the grant is for.
    public let resource: String
    /// The inbox the connection defaults to (an agent account id), nil when none or it is gone.
    public let defaultAccountID: String?
    /// When the owner approved it, Unix seconds.
    public let grantedAt: Int64
    /// The one inbox the app can reach (bound at consent, or named by an inbox resource); nil when it can reach
    /// every inbox the owner holds, including ones added later.
    public let boundAccountID: String?

    public init(
        id: String, clientID: String, clientName: String?, scopes: [String], resource: String,
        defaultAccountID: String?, grantedAt: Int64, boundAccountID: String? = nil
    ) {
        self.id = id
        self.clientID = clientID
        self.clientName = clientName
        self.scopes = scopes
        self.resource = resource
        self.defaultAccountID = defaultAccountID
        self.grantedAt = grantedAt
        self.boundAccountID = boundAccountID
    }
}

/// The owner's side of the authorization server's grants: list an owner's live grants and revoke one. The
/// authorization server writes these rows; this only reads them and sets `revoked_at` (on PostgreSQL the table's
/// trigger then notifies `postern_grants`, so every instance drops the grant at once).
public struct OwnerGrants: Sendable {
    let database: any SQLDatabase
    let clock: @Sendable () -> Int64
    let revoked: @Sendable (String) -> Void

    /// - Parameters:
    ///   - database: a database with migration 0016 applied.
    ///   - clock: Unix seconds (what "live" is measured against).
    ///   - revoked: told the id of each grant revoked here, after the write: where an in-process cache of live
    ///     grants (the resource servers') drops it on a database with no notifications (SQLite).
    public init(
        database: any SQLDatabase, clock: @escaping @Sendable () -> Int64,
        revoked: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.database = database
        self.clock = clock
        self.revoked = revoked
    }

    /// The live (unrevoked, unexpired) grants of `ownerID`, newest first. A consent whose authorization code was
    /// never redeemed is no connected app (the app never got a token; the purge drops it once the code expired).
    /// - Throws: storage errors.
    public func grants(ownerID: String) async throws -> [OwnerGrant] {
        let now = clock()
        return try await database.read { connection in
            try connection.query(
                """
                SELECT g.id, g.client_id, c.client_name, g.scope, g.resource, g.agent_id, g.created_at,
                g.bound_account_id
                FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
                WHERE g.owner_id = ? AND g.revoked_at IS NULL AND g.expires_at > ?
                AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.grant_id = g.id AND k.used_at IS NULL)
                ORDER BY g.created_at DESC, g.id
                """,
                [.text(ownerID), .integer(now)]
            ).compactMap(Self.grant)
        }
    }

    /// Revokes grant `id` when it is `ownerID`'s and live; its refresh and access tokens stop working with it.
    /// - Returns: false when `ownerID` has no live grant `id` (someone else's, unknown, or revoked already).
    /// - Throws: storage errors.
    public func revoke(id: String, ownerID: String) async throws -> Bool {
        let now = clock()
        let changed = try await database.write { connection in
            try connection.run(
                "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND owner_id = ? AND revoked_at IS NULL",
                [.integer(now), .text(id), .text(ownerID)]) > 0
        }
        if changed { revoked(id) }
        return changed
    }

    private static func grant(_ row: SQLRow) -> OwnerGrant? {
        guard let id = row.text("id"), let client = row.text("client_id"), let scope = row.text("scope"),
            let resource = row.text("resource"), let created = row.int("created_at")
        else { return nil }
        // An inbox resource (`urn:atomicmail:agent:{id}`) binds the tokens to that inbox even on a grant approved
        // before the grant itself could be bound (migration 0026).
        let inboxResource = "urn:atomicmail:agent:"
        let bound =
            row.text("bound_account_id")
            ?? (resource.hasPrefix(inboxResource) ? String(resource.dropFirst(inboxResource.count)) : nil)
        return OwnerGrant(
            id: id, clientID: client, clientName: row.text("client_name"),
            scopes: scope.split(separator: " ").map(String.init), resource: resource,
            defaultAccountID: row.text("agent_id"), grantedAt: created, boundAccountID: bound?.lowercased())
    }
}
