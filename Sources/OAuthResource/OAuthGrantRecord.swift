import Directory
import Storage

/// One access token's grant as the database holds it: read by `jti` from `oauth_access_tokens` joined to
/// `oauth_grants` (migration 0016, written by the authorization server).
struct OAuthGrantRecord: Sendable, Equatable {
    let grantID: String
    let ownerID: String
    let clientID: String
    /// The grant's default inbox, when it still exists.
    let agentID: String?
    /// The one inbox the grant reaches (migration 0026); nil for every inbox the owner holds.
    let boundAccountID: String?
    let scope: String
    let resource: String
    /// End of the grant's rotation chain, Unix seconds.
    let grantExpiresAt: Int64
    /// When the token itself expires (its row), Unix seconds.
    let tokenExpiresAt: Int64
    let revoked: Bool

    /// Whether the grant still opens anything at `now`.
    func isLive(at now: Int64) -> Bool {
        !revoked && grantExpiresAt > now && tokenExpiresAt > now
    }

    private static let select = """
        SELECT g.id, g.owner_id, g.client_id, g.agent_id, g.scope, g.resource, g.expires_at, g.revoked_at,
        g.bound_account_id, t.expires_at AS token_expires_at
        FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id
        WHERE t.jti = ?
        """

    /// The grant of access token `jti`, or nil when no token of that id was issued.
    /// - Throws: storage errors.
    static func find(jti: String, in database: any SQLDatabase) async throws -> OAuthGrantRecord? {
        try await database.read { connection in
            try connection.query(select, [.text(jti)]).first.flatMap(OAuthGrantRecord.init(row:))
        }
    }

}

extension OAuthGrantRecord {
    fileprivate init?(row: SQLRow) {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let client = row.text("client_id"),
            let scope = row.text("scope"), let resource = row.text("resource"), let expires = row.int("expires_at"),
            let tokenExpires = row.int("token_expires_at")
        else { return nil }
        grantID = id
        ownerID = owner
        clientID = client
        agentID = row.text("agent_id")
        boundAccountID = row.text("bound_account_id")
        self.scope = scope
        self.resource = resource
        grantExpiresAt = expires
        tokenExpiresAt = tokenExpires
        revoked = row.int("revoked_at") != nil
    }
}
