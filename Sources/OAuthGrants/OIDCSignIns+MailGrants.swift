import Directory
import Foundation
import Storage

/// The mail grants of relying parties (migration 0079, ``OIDCMailGrant``): made when a code whose sign-in asked for
/// mail scopes is redeemed, found by the resource side through ``OAuthGrantStore/record(jti:)`` like every other grant, and
/// rotated by their refresh tokens. A rotation's single winner is one conditional `UPDATE`, as in ``OAuthGrantStore``.
extension OIDCSignIns {
    /// What a presented refresh token is, before anything is written.
    public enum RefreshCheck: Sendable, Equatable {
        /// Current, unexpired, of a live grant of this client: rotate it.
        case ready(OIDCMailGrant)
        /// Superseded: a lost race or a reuse, which ``rotate(_:grant:issue:sawSuperseded:now:raceWindow:)`` tells
        /// apart.
        case superseded(OIDCMailGrant)
        /// Unknown, another client's, of a revoked grant, or expired: `invalid_grant` with this description.
        case refused(String)
    }

    /// Reads the refresh token `token` presented by `clientID`.
    /// - Throws: storage errors.
    public func checkRefresh(_ token: String, clientID: String, now: Int64) async throws -> RefreshCheck {
        try await database.read { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT r.expires_at AS token_expires_at, r.superseded_at, \(Self.mailGrantColumns)
                    FROM oidc_refresh_tokens r JOIN oidc_mail_grants g ON g.id = r.grant_id WHERE r.token_digest = ?
                    """, [.blob(OAuthDigest.of(token))]
                ).first, let grant = Self.mailGrant(row)
            else { return .refused("The refresh token is unknown.") }
            guard grant.clientID == clientID else { return .refused("The refresh token was issued to another client.") }
            guard row.int("revoked_at") == nil else { return .refused("The grant has been revoked.") }
            if row.int("superseded_at") != nil { return .superseded(grant) }
            guard let expires = row.int("token_expires_at"), expires > now, grant.expiresAt > now else {
                return .refused("The refresh token has expired.")
            }
            return .ready(grant)
        }
    }

    /// Supersedes `token` if it is still current and writes `issue` (the next refresh token and the access token row).
    /// Otherwise a request that saw the token current, or saw it superseded less than `raceWindow` seconds ago, lost a
    /// race (nothing revoked: two requests of the app in flight with one token, as Roundcube's concurrent requests
    /// are); one that saw it superseded earlier is a reuse, and the grant is revoked.
    /// - Returns: `.rotated`, `.lostRace`, `.reused` or `.gone` (expired or revoked meanwhile); never `.retried`.
    /// - Throws: storage errors.
    public func rotate(
        _ token: String, grant: OIDCMailGrant, issue: OAuthIssue, sawSuperseded: Bool, now: Int64,
        raceWindow: Int64
    ) async throws -> OAuthGrantStore.Rotation {
        let digest = OAuthDigest.of(token)
        let rotation: OAuthGrantStore.Rotation = try await database.write { connection in
            try connection.transaction {
                if !sawSuperseded,
                    try connection.run(
                        """
                        UPDATE oidc_refresh_tokens SET superseded_at = ?
                        WHERE token_digest = ? AND superseded_at IS NULL AND expires_at > ?
                        AND EXISTS (SELECT 1 FROM oidc_mail_grants g WHERE g.id = oidc_refresh_tokens.grant_id
                            AND g.revoked_at IS NULL AND g.expires_at > ?)
                        """, [.integer(now), .blob(digest), .integer(now), .integer(now)]) == 1
                {
                    // The userinfo claims the sign-in asked for by name go on with the grant's next access token: the
                    // grant keeps them (migration 0080), as its access tokens' rows are swept once expired.
                    let claims = try connection.query(
                        "SELECT claims FROM oidc_mail_grants WHERE id = ?", [.text(grant.id)]
                    ).first?.text("claims")
                    try Self.insert(issue, grant: grant, claims: claims.map { .text($0) } ?? .null, now: now, connection)
                    return .rotated
                }
                guard
                    let superseded = try connection.query(
                        "SELECT superseded_at FROM oidc_refresh_tokens WHERE token_digest = ?", [.blob(digest)]
                    ).first?.int("superseded_at")
                else { return .gone }
                if !sawSuperseded || now - superseded < raceWindow { return .lostRace }
                return try Self.revokeMailGrant(id: grant.id, now: now, connection) ? .reused : .gone
            }
        }
        if rotation == .reused { observer?.grantRevoked(grant.id) }
        return rotation
    }

    /// The mail grant `id` as stored, and whether it is revoked.
    /// - Throws: storage errors.
    public func mailGrant(id: String) async throws -> (grant: OIDCMailGrant, revoked: Bool)? {
        try await database.read { connection in
            guard
                let row = try connection.query(
                    "SELECT \(Self.mailGrantColumns) FROM oidc_mail_grants g WHERE g.id = ?", [.text(id)]
                ).first, let grant = Self.mailGrant(row)
            else { return nil }
            return (grant, row.int("revoked_at") != nil)
        }
    }

    // MARK: - Shared statements

    /// A new grant for a redeemed code's sign-in (inside the redemption's transaction), keeping the userinfo claims
    /// asked for by name (`claims`) for every access token of its chain.
    static func insert(
        _ grant: OIDCMailGrant, issue: OAuthIssue, claims: SQLValue, now: Int64, _ connection: any SQLConnection
    ) throws {
        try connection.run(
            """
            INSERT INTO oidc_mail_grants (id, client_id, owner_id, scope, mail_scope, resource, created_at, expires_at,
                claims)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(grant.id), .text(grant.clientID), .text(grant.ownerID),
                .text(grant.scopes.joined(separator: " ")), .text(grant.permissions.scope), .text(grant.resource),
                .integer(now), .integer(grant.expiresAt), claims,
            ])
        try insert(issue, grant: grant, claims: claims, now: now, connection)
    }

    /// `issue`'s refresh token and access token row, with the userinfo claims asked for by name (`claims`, normal JSON
    /// or null).
    static func insert(
        _ issue: OAuthIssue, grant: OIDCMailGrant, claims: SQLValue, now: Int64, _ connection: any SQLConnection
    ) throws {
        try connection.run(
            "INSERT INTO oidc_refresh_tokens (token_digest, grant_id, issued_at, expires_at) VALUES (?, ?, ?, ?)",
            [
                .blob(OAuthDigest.of(issue.refreshToken)), .text(grant.id), .integer(now),
                .integer(issue.refreshExpiresAt),
            ])
        try connection.run(
            """
            INSERT INTO oidc_access_tokens (jti, client_id, owner_id, scope, expires_at, grant_id, claims)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(issue.jti), .text(grant.clientID), .text(grant.ownerID),
                .text(grant.scopes.joined(separator: " ")), .integer(issue.accessExpiresAt), .text(grant.id), claims,
            ])
    }

    /// The one statement that revokes a mail grant; whether it was live.
    @discardableResult
    static func revokeMailGrant(id: String, now: Int64, _ connection: any SQLConnection) throws -> Bool {
        try connection.run(
            "UPDATE oidc_mail_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            [.integer(now), .text(id)]) == 1
    }

    /// The grant record of a mail grant's access token `jti`, live or not, as a resource server checks a token against
    /// (``OAuthGrantStore/record(jti:)``); nil when `jti` is no such token.
    static func mailRecord(jti: String, _ connection: any SQLConnection) throws -> OAuthGrantRecord? {
        guard
            let row = try connection.query(
                """
                SELECT t.expires_at AS token_expires_at, t.revoked_at AS token_revoked_at, \(mailGrantColumns)
                FROM oidc_access_tokens t JOIN oidc_mail_grants g ON g.id = t.grant_id WHERE t.jti = ?
                """, [.text(jti)]
            ).first, let grant = mailGrant(row), let tokenExpires = row.int("token_expires_at")
        else { return nil }
        return OAuthGrantRecord(
            grantID: grant.id, ownerID: grant.ownerID, clientID: grant.clientID, agentID: nil, boundAccountID: nil,
            permissions: grant.permissions, resource: grant.resource, grantExpiresAt: grant.expiresAt,
            tokenExpiresAt: tokenExpires, revoked: row.int("revoked_at") != nil || row.int("token_revoked_at") != nil)
    }

    static let mailGrantColumns =
        "g.id, g.client_id, g.owner_id, g.scope, g.mail_scope, g.resource, g.expires_at, g.revoked_at"

    static func mailGrant(_ row: SQLRow) -> OIDCMailGrant? {
        guard let id = row.text("id"), let client = row.text("client_id"), let owner = row.text("owner_id"),
            let scope = row.text("scope"),
            let permissions = row.text("mail_scope").flatMap(MailPermissions.init(scope:)),
            let resource = row.text("resource"), let expires = row.int("expires_at")
        else { return nil }
        return OIDCMailGrant(
            id: id, clientID: client, ownerID: owner, scopes: scope.split(separator: " ").map(String.init),
            permissions: permissions, resource: resource, expiresAt: expires)
    }

    /// A new mail grant's id: a lowercase UUID, as grants' ids are.
    public static func newGrantID() -> String { UUID().uuidString.lowercased() }
}
