import Foundation
import OAuthResource
import Storage

/// Grants, codes, refresh tokens and access-token rows (`oauth_grants`, `oauth_codes`, `oauth_refresh_tokens`,
/// `oauth_access_tokens`): every rule of README "OAuth for apps", decisions 3 and 4 that the database decides.
///
/// Each check that must pick one winner among concurrent requests (a code's single use, a refresh token's rotation)
/// is one conditional `UPDATE`: on SQLite writes are serialised; on PostgreSQL the second `UPDATE` waits on the
/// first's row lock and then finds its condition false, so exactly one wins across instances.
public struct OAuthGrantStore: Sendable {
    let database: any SQLDatabase
    /// This instance's cache of live grants, which a revocation here drops at once.
    let cache: OAuthGrantCache

    /// - Parameters:
    ///   - database: a database with migration 0016 applied.
    ///   - cache: the live-grant cache of the resource side, made by the composition root; one of its own otherwise.
    public init(database: any SQLDatabase, cache: OAuthGrantCache = OAuthGrantCache()) {
        self.database = database
        self.cache = cache
    }

    // MARK: - Consent

    /// Creates the grant an owner approved and its authorization code, in one transaction; marks the client used.
    /// - Parameters:
    ///   - agentID: the default inbox.
    ///   - boundAccountID: the one inbox the grant reaches; nil for every inbox the owner holds.
    /// - Returns: the grant and the code (the table holds only its digest).
    public func approve(
        ownerID: String, clientID: String, agentID: String?, boundAccountID: String?, scopes: [String],
        resource: String, redirectURI: String, codeChallenge: String, now: Int64, codeLifetime: Int64,
        grantLifetime: Int64
    ) async throws -> (grant: OAuthGrant, code: String) {
        let grant = OAuthGrant(
            id: UUID().uuidString.lowercased(), ownerID: ownerID, clientID: clientID, agentID: agentID, scopes: scopes,
            resource: resource, createdAt: now, expiresAt: now + grantLifetime, boundAccountID: boundAccountID)
        let code = OAuthDigest.newToken()
        try await database.write { connection in
            try connection.transaction {
                try connection.run(
                    """
                    INSERT INTO oauth_grants (id, owner_id, client_id, agent_id, scope, resource, created_at,
                        expires_at, bound_account_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(grant.id), .text(ownerID), .text(clientID), agentID.map { .text($0) } ?? .null,
                        .text(OAuthScope.text(scopes)), .text(resource), .integer(now), .integer(grant.expiresAt),
                        boundAccountID.map { .text($0) } ?? .null,
                    ])
                try connection.run(
                    """
                    INSERT INTO oauth_codes (code_digest, grant_id, redirect_uri, code_challenge, expires_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                    [
                        .blob(OAuthDigest.of(code)), .text(grant.id), .text(redirectURI), .text(codeChallenge),
                        .integer(now + codeLifetime),
                    ])
                try connection.run(
                    "UPDATE oauth_clients SET first_granted_at = ? WHERE client_id = ? AND first_granted_at IS NULL",
                    [.integer(now), .text(clientID)])
            }
        }
        return (grant, code)
    }

    // MARK: - Codes

    /// What a presented code is, before anything is written.
    enum CodeCheck: Sendable, Equatable {
        /// Unused, unexpired, of a live grant of this client and for this redirect URI: redeem it.
        case ready(OAuthGrant, codeChallenge: String)
        /// Already used: a replay, which revokes the grant it issued.
        case replayed(grantID: String)
        case refused(OAuthError)
    }

    /// Reads the code `code` presented by `clientID` with `redirectURI` (blocking: call it on a worker thread).
    func checkCode(_ code: String, clientID: String, redirectURI: String?, now: Int64) throws -> CodeCheck {
        try database.readSync { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT c.redirect_uri, c.code_challenge, c.expires_at AS code_expires_at, c.used_at,
                        \(Self.grantColumns)
                    FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_digest = ?
                    """,
                    [.blob(OAuthDigest.of(code))]
                ).first, let grant = Self.grant(row)
            else { return .refused(.invalidGrant("The authorization code is unknown.")) }
            guard grant.clientID == clientID else {
                return .refused(.invalidGrant("The authorization code was issued to another client."))
            }
            if row.int("used_at") != nil { return .replayed(grantID: grant.id) }
            guard row.int("revoked_at") == nil else { return .refused(.invalidGrant("The grant has been revoked.")) }
            guard let expires = row.int("code_expires_at"), expires > now else {
                return .refused(.invalidGrant("The authorization code has expired."))
            }
            guard let redirectURI, redirectURI == row.text("redirect_uri") else {
                return .refused(.invalidGrant("redirect_uri differs from the authorization request's."))
            }
            return .ready(grant, codeChallenge: row.text("code_challenge") ?? "")
        }
    }

    /// Marks `code` used, if nobody did first, and writes what `issue` hands out; false when another request used
    /// the code first (then the grant is revoked, as for any replay).
    func redeem(_ code: String, grant: OAuthGrant, issue: OAuthIssue, now: Int64) async throws -> Bool {
        let won = try await database.write { connection in
            try connection.transaction {
                let won = try connection.run(
                    """
                    UPDATE oauth_codes SET used_at = ? WHERE code_digest = ? AND used_at IS NULL
                    AND EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = oauth_codes.grant_id AND g.revoked_at IS NULL)
                    """,
                    [.integer(now), .blob(OAuthDigest.of(code))])
                guard won == 1 else {
                    try Self.revoke(grantID: grant.id, now: now, connection)
                    return false
                }
                try Self.insert(issue, grantID: grant.id, now: now, connection)
                return true
            }
        }
        if !won { revoked(grant.id) }
        return won
    }

    // MARK: - Refresh tokens

    /// What a presented refresh token is, before anything is written.
    enum RefreshCheck: Sendable, Equatable {
        /// Current, unexpired, of a live grant of this client: rotate it.
        case ready(OAuthGrant)
        /// Superseded: a lost race or a reuse, which ``rotate(_:grant:issue:now:raceWindow:)`` tells apart.
        case superseded(OAuthGrant)
        case refused(OAuthError)
    }

    /// Reads the refresh token `token` presented by `clientID` (blocking: call it on a worker thread).
    func checkRefresh(_ token: String, clientID: String, now: Int64) throws -> RefreshCheck {
        try database.readSync { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT r.expires_at AS token_expires_at, r.superseded_at, \(Self.grantColumns)
                    FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_digest = ?
                    """,
                    [.blob(OAuthDigest.of(token))]
                ).first, let grant = Self.grant(row)
            else { return .refused(.invalidGrant("The refresh token is unknown.")) }
            guard grant.clientID == clientID else {
                return .refused(.invalidGrant("The refresh token was issued to another client."))
            }
            guard row.int("revoked_at") == nil else { return .refused(.invalidGrant("The grant has been revoked.")) }
            if row.int("superseded_at") != nil { return .superseded(grant) }
            guard let expires = row.int("token_expires_at"), expires > now, grant.expiresAt > now else {
                return .refused(.invalidGrant("The refresh token has expired."))
            }
            return .ready(grant)
        }
    }

    /// How a rotation ended.
    enum Rotation: Sendable, Equatable {
        /// This request superseded the token; `issue` is written.
        case rotated
        /// Another request superseded it less than the race window ago: refused, nothing revoked.
        case lostRace
        /// Superseded earlier: a reuse; the grant is revoked.
        case reused
        /// Expired or revoked meanwhile.
        case gone
    }

    /// Supersedes `token` if it is still current (one conditional `UPDATE`) and writes `issue`; otherwise tells a
    /// lost race (this request saw the token current, or it was superseded less than `raceWindow` seconds ago:
    /// nothing revoked) from a reuse (the grant revoked).
    /// - Parameter issue: what to write when this request wins; nil for a token already seen superseded.
    func rotate(_ token: String, grant: OAuthGrant, issue: OAuthIssue?, now: Int64, raceWindow: Int64) async throws
        -> Rotation
    {
        let digest = OAuthDigest.of(token)
        let rotation: Rotation = try await database.write { connection in
            try connection.transaction {
                let won = issue == nil ? 0 : try connection.run(
                    """
                    UPDATE oauth_refresh_tokens SET superseded_at = ?
                    WHERE token_digest = ? AND superseded_at IS NULL AND expires_at > ?
                    AND EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = oauth_refresh_tokens.grant_id
                        AND g.revoked_at IS NULL AND g.expires_at > ?)
                    """,
                    [.integer(now), .blob(digest), .integer(now), .integer(now)])
                if won == 1, let issue {
                    try Self.insert(issue, grantID: grant.id, now: now, connection)
                    return .rotated
                }
                guard
                    let superseded = try connection.query(
                        "SELECT superseded_at FROM oauth_refresh_tokens WHERE token_digest = ?", [.blob(digest)]
                    ).first?.int("superseded_at")
                else { return .gone }
                // A request that read the token as current and then lost the update was overtaken by another one
                // in flight with it: a race however long the winner took to commit (its stamp is its start time,
                // and instances' clocks differ), never a reuse.
                if issue != nil || now - superseded < raceWindow { return .lostRace }
                return try Self.revoke(grantID: grant.id, now: now, connection) ? .reused : .gone
            }
        }
        if rotation == .reused { revoked(grant.id) }
        return rotation
    }

    // MARK: - Revocation

    /// Revokes grant `grantID` (its codes, refresh and access tokens die with it); false when it already was.
    @discardableResult
    public func revoke(grantID: String, now: Int64) async throws -> Bool {
        let done = try await database.write { try Self.revoke(grantID: grantID, now: now, $0) }
        if done { revoked(grantID) }
        return done
    }

    /// Drops a grant revoked (and committed) here from this instance's cache of live grants at once; the others hear
    /// `postern_grants` on PostgreSQL.
    private func revoked(_ grantID: String) {
        cache.invalidate(grantID: grantID)
    }

    /// The grant the refresh token `token` belongs to, and its client, if any.
    func grantOf(refreshToken token: String) async throws -> (grantID: String, clientID: String)? {
        try await database.read { connection in
            try connection.query(
                """
                SELECT g.id, g.client_id FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id
                WHERE r.token_digest = ?
                """, [.blob(OAuthDigest.of(token))]
            ).first.flatMap { row in row.text("id").flatMap { id in row.text("client_id").map { (id, $0) } } }
        }
    }

    /// The grant the access token with `jti` belongs to, and its client, if any.
    func grantOf(jti: String) async throws -> (grantID: String, clientID: String)? {
        try await database.read { connection in
            try connection.query(
                """
                SELECT g.id, g.client_id FROM oauth_access_tokens a JOIN oauth_grants g ON g.id = a.grant_id
                WHERE a.jti = ?
                """, [.text(jti)]
            ).first.flatMap { row in row.text("id").flatMap { id in row.text("client_id").map { (id, $0) } } }
        }
    }

    /// The grant `grantID` as stored, and whether it is revoked (for tests and the owner pages).
    public func grant(id grantID: String) async throws -> (grant: OAuthGrant, revoked: Bool)? {
        try await database.read { connection in
            guard let row = try connection.query(
                "SELECT \(Self.grantColumns) FROM oauth_grants g WHERE g.id = ?", [.text(grantID)]
            ).first, let grant = Self.grant(row) else { return nil }
            return (grant, row.int("revoked_at") != nil)
        }
    }

    /// Whether the access token `jti` belongs to a live grant (unrevoked, unexpired), as a resource server asks.
    public func accessTokenLive(jti: String, now: Int64) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                """
                SELECT 1 FROM oauth_access_tokens a JOIN oauth_grants g ON g.id = a.grant_id
                WHERE a.jti = ? AND a.expires_at > ? AND g.revoked_at IS NULL AND g.expires_at > ?
                """, [.text(jti), .integer(now), .integer(now)]
            ).isEmpty
        }
    }

    // MARK: - Shared statements

    static let grantColumns =
        "g.id, g.owner_id, g.client_id, g.agent_id, g.scope, g.resource, g.created_at, g.expires_at, g.revoked_at, "
        + "g.bound_account_id"

    static func grant(_ row: SQLRow) -> OAuthGrant? {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let client = row.text("client_id"),
            let scope = row.text("scope"), let scopes = OAuthScope.parse(scope), let resource = row.text("resource"),
            let created = row.int("created_at"), let expires = row.int("expires_at")
        else { return nil }
        return OAuthGrant(
            id: id, ownerID: owner, clientID: client, agentID: row.text("agent_id"), scopes: scopes,
            resource: resource, createdAt: created, expiresAt: expires, boundAccountID: row.text("bound_account_id"))
    }

    static func insert(_ issue: OAuthIssue, grantID: String, now: Int64, _ connection: any SQLConnection) throws {
        try connection.run(
            "INSERT INTO oauth_refresh_tokens (token_digest, grant_id, issued_at, expires_at) VALUES (?, ?, ?, ?)",
            [.blob(OAuthDigest.of(issue.refreshToken)), .text(grantID), .integer(now), .integer(issue.refreshExpiresAt)])
        try connection.run(
            "INSERT INTO oauth_access_tokens (jti, grant_id, expires_at) VALUES (?, ?, ?)",
            [.text(issue.jti), .text(grantID), .integer(issue.accessExpiresAt)])
    }

    @discardableResult
    static func revoke(grantID: String, now: Int64, _ connection: any SQLConnection) throws -> Bool {
        try connection.run(
            "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.integer(now), .text(grantID)])
            == 1
    }
}
