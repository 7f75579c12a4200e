import Directory
import Foundation
import Storage

/// Grants, codes, refresh tokens and access-token rows (`oauth_grants`, `oauth_codes`, `oauth_refresh_tokens`,
/// `oauth_access_tokens`): every rule of docs/decisions/0016 and 0017 that the database decides. The
/// one writer of these tables: the authorization server approves, redeems and rotates through it, the owner pages
/// list and revoke through it, the resource side finds a token's grant through it. Every revocation, whoever asks,
/// is ``revoke(grantID:now:ownerID:)`` and is told to the ``OAuthGrantRevocationObserver``.
///
/// Each check that must pick one winner among concurrent requests (a code's single use, a refresh token's rotation)
/// is one conditional `UPDATE`: on SQLite writes are serialised; on PostgreSQL the second `UPDATE` waits on the
/// first's row lock and then finds its condition false, so exactly one wins across instances.
public struct OAuthGrantStore: Sendable {
    let database: any SQLDatabase
    let observer: (any OAuthGrantRevocationObserver)?

    /// - Parameters:
    ///   - database: a database with migrations 0016, 0026, 0069 and 0071 applied.
    ///   - observer: told each grant revoked here, after the write (the instance's cache of live grants).
    public init(database: any SQLDatabase, observer: (any OAuthGrantRevocationObserver)? = nil) {
        self.database = database
        self.observer = observer
    }

    // MARK: - Consent

    /// Creates the grant an owner approved and its authorization code, in one transaction; marks the client used.
    /// - Parameters:
    ///   - agentID: the default inbox.
    ///   - boundAccountID: the one inbox the grant reaches; nil for every inbox the owner holds.
    /// - Returns: the grant and the code (the table holds only its digest).
    public func approve(
        ownerID: String, clientID: String, agentID: String?, boundAccountID: String?, permissions: MailPermissions,
        resource: String, redirectURI: String, codeChallenge: String, now: Int64, codeLifetime: Int64,
        grantLifetime: Int64
    ) async throws -> (grant: OAuthGrant, code: String) {
        let grant = OAuthGrant(
            id: UUID().uuidString.lowercased(), ownerID: ownerID, clientID: clientID, agentID: agentID,
            permissions: permissions, resource: resource, createdAt: now, expiresAt: now + grantLifetime,
            boundAccountID: boundAccountID)
        let code = OAuthDigest.newToken()
        try await database.write { connection in
            try connection.transaction {
                try Self.insertGrant(grant, connection)
                try connection.run(
                    """
                    INSERT INTO oauth_codes (code_digest, grant_id, redirect_uri, code_challenge, expires_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                    [
                        .blob(OAuthDigest.of(code)), .text(grant.id), .text(redirectURI), .text(codeChallenge),
                        .integer(now + codeLifetime),
                    ])
            }
        }
        return (grant, code)
    }

    // MARK: - Codes

    /// What a presented code is, before anything is written.
    public enum CodeCheck: Sendable, Equatable {
        /// Unused, unexpired, of a live grant of this client and for this redirect URI: redeem it.
        case ready(OAuthGrant, codeChallenge: String)
        /// Already used: a replay, which revokes the grant it issued.
        case replayed(grantID: String)
        /// Unknown, another client's, of a revoked grant, expired, or for another redirect URI: `invalid_grant`
        /// with this description.
        case refused(String)
    }

    /// Reads the code `code` presented by `clientID` with `redirectURI` (blocking: call it on a worker thread).
    public func checkCode(_ code: String, clientID: String, redirectURI: String?, now: Int64) throws -> CodeCheck {
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
            else { return .refused("The authorization code is unknown.") }
            guard grant.clientID == clientID else {
                return .refused("The authorization code was issued to another client.")
            }
            if row.int("used_at") != nil { return .replayed(grantID: grant.id) }
            guard row.int("revoked_at") == nil else { return .refused("The grant has been revoked.") }
            guard let expires = row.int("code_expires_at"), expires > now else {
                return .refused("The authorization code has expired.")
            }
            guard let redirectURI, redirectURI == row.text("redirect_uri") else {
                return .refused("redirect_uri differs from the authorization request's.")
            }
            return .ready(grant, codeChallenge: row.text("code_challenge") ?? "")
        }
    }

    /// Marks `code` used, if nobody did first, and writes what `issue` hands out; false when another request used
    /// the code first (then the grant is revoked, as for any replay).
    public func redeem(_ code: String, grant: OAuthGrant, issue: OAuthIssue, now: Int64) async throws -> Bool {
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
    public enum RefreshCheck: Sendable, Equatable {
        /// Current, unexpired, of a live grant of this client: rotate it.
        case ready(OAuthGrant)
        /// Superseded: a lost race or a reuse, which ``rotate(_:grant:issue:now:raceWindow:)`` tells apart.
        case superseded(OAuthGrant)
        /// Unknown, another client's, of a revoked grant, or expired: `invalid_grant` with this description.
        case refused(String)
    }

    /// Reads the refresh token `token` presented by `clientID` (blocking: call it on a worker thread).
    public func checkRefresh(_ token: String, clientID: String, now: Int64) throws -> RefreshCheck {
        try database.readSync { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT r.expires_at AS token_expires_at, r.superseded_at, \(Self.grantColumns)
                    FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_digest = ?
                    """,
                    [.blob(OAuthDigest.of(token))]
                ).first, let grant = Self.grant(row)
            else { return .refused("The refresh token is unknown.") }
            guard grant.clientID == clientID else {
                return .refused("The refresh token was issued to another client.")
            }
            guard row.int("revoked_at") == nil else { return .refused("The grant has been revoked.") }
            if row.int("superseded_at") != nil { return .superseded(grant) }
            guard let expires = row.int("token_expires_at"), expires > now, grant.expiresAt > now else {
                return .refused("The refresh token has expired.")
            }
            return .ready(grant)
        }
    }

    /// How a rotation ended.
    public enum Rotation: Sendable, Equatable {
        /// This request superseded the token; `issue` is written.
        case rotated
        /// The token was superseded already, by a rotation whose successor has never been presented, more than the
        /// race window but less than the retry window ago: taken for the retry of a refresh whose answer was lost (a 503 in doubt whose rotation
        /// committed after all, a dropped connection), so the unused successor is superseded in turn and `issue`
        /// written in its place.
        case retried
        /// Another request superseded it less than the race window ago: refused, nothing revoked.
        case lostRace
        /// Superseded earlier: a reuse; the grant is revoked.
        case reused
        /// Expired or revoked meanwhile.
        case gone
    }

    /// Supersedes `token` if it is still current (one conditional `UPDATE`) and writes `issue`, recording the new
    /// token as its successor. Otherwise: a request that saw the token current, or saw it superseded less than
    /// `raceWindow` seconds ago, lost a race (nothing revoked: two requests in flight with one token); one that saw it
    /// superseded later is a retry when its successor is unused and it was superseded less than `retryWindow` seconds
    /// ago (rotated again: the client never received that successor, and must not be punished for an answer it did
    /// not get: a 503 whose rotation committed after all), and a reuse (the grant revoked) otherwise.
    /// - Parameters:
    ///   - issue: what to write when this request wins.
    ///   - sawSuperseded: ``checkRefresh(_:clientID:now:)`` found the token superseded already.
    /// - Warning: a retry window lets whoever holds a just-superseded token take the unused successor's place; the
    ///   legitimate client's next refresh then presents a superseded token, and once the window has passed that is
    ///   the reuse that revokes the grant. Keep the window as short as a 503's retry needs.
    public func rotate(
        _ token: String, grant: OAuthGrant, issue: OAuthIssue, sawSuperseded: Bool, now: Int64, raceWindow: Int64,
        retryWindow: Int64
    ) async throws -> Rotation {
        let digest = OAuthDigest.of(token)
        let rotation: Rotation = try await database.write { connection in
            try connection.transaction {
                if !sawSuperseded, try Self.supersede(digest, by: issue, now: now, connection) {
                    try Self.insert(issue, grantID: grant.id, now: now, connection)
                    return .rotated
                }
                guard
                    let row = try connection.query(
                        "SELECT superseded_at, successor_digest FROM oauth_refresh_tokens WHERE token_digest = ?",
                        [.blob(digest)]
                    ).first, let superseded = row.int("superseded_at")
                else { return .gone }
                // A request that read the token as current and then lost the update was overtaken by another one
                // in flight with it: a race however long the winner took to commit (its stamp is its start time,
                // and instances' clocks differ), never a reuse.
                if !sawSuperseded || now - superseded < raceWindow { return .lostRace }
                if now - superseded < retryWindow, let successor = row.blob("successor_digest"),
                    try Self.supersede(successor, by: issue, now: now, connection)
                {
                    try connection.run(
                        "UPDATE oauth_refresh_tokens SET successor_digest = ? WHERE token_digest = ?",
                        [.blob(OAuthDigest.of(issue.refreshToken)), .blob(digest)])
                    try Self.insert(issue, grantID: grant.id, now: now, connection)
                    return .retried
                }
                return try Self.revoke(grantID: grant.id, now: now, connection) ? .reused : .gone
            }
        }
        if rotation == .reused { revoked(grant.id) }
        return rotation
    }

    /// Supersedes the refresh token `digest` by `issue`'s if it is current, unexpired and of a live grant; whether it
    /// did.
    private static func supersede(
        _ digest: [UInt8], by issue: OAuthIssue, now: Int64, _ connection: any SQLConnection
    ) throws -> Bool {
        try connection.run(
            """
            UPDATE oauth_refresh_tokens SET superseded_at = ?, successor_digest = ?
            WHERE token_digest = ? AND superseded_at IS NULL AND expires_at > ?
            AND EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = oauth_refresh_tokens.grant_id
                AND g.revoked_at IS NULL AND g.expires_at > ?)
            """,
            [.integer(now), .blob(OAuthDigest.of(issue.refreshToken)), .blob(digest), .integer(now), .integer(now)]
        ) == 1
    }

    // MARK: - Revocation

    /// Revokes grant `grantID` (its codes, refresh and access tokens die with it) and tells the observer: the one
    /// revocation of every path (an app's `/oauth/revoke`, a replayed code or refresh token, the owner's page).
    /// - Parameter ownerID: when given, only a grant of this owner is revoked (the owner pages).
    /// - Returns: false when there was no such unrevoked grant (unknown, another owner's, or revoked already).
    @discardableResult
    public func revoke(grantID: String, now: Int64, ownerID: String? = nil) async throws -> Bool {
        let done = try await database.write { try Self.revoke(grantID: grantID, now: now, ownerID: ownerID, $0) }
        if done { revoked(grantID) }
        return done
    }

    /// The relying parties' sign-ins on this store's database, telling this store's observer of the mail grants they
    /// revoke (the one cache of live grants hears of every revocation).
    public var openIDSignIns: OIDCSignIns { OIDCSignIns(database: database, observer: observer) }

    private func revoked(_ grantID: String) {
        observer?.grantRevoked(grantID)
    }

    /// The grant the refresh token `token` belongs to, and its client, if any.
    public func grantOf(refreshToken token: String) async throws -> (grantID: String, clientID: String)? {
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
    public func grantOf(jti: String) async throws -> (grantID: String, clientID: String)? {
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

    // MARK: - Resource servers

    /// The grant of access token `jti` as stored, live or not (an owner's grant, a client's own client credentials
    /// grant, a delegated token's, migration 0072, or a relying party's mail grant, migration 0079); nil when no token
    /// of that id was issued.
    /// - Throws: storage errors.
    public func record(jti: String) async throws -> OAuthGrantRecord? {
        try await database.read { try Self.anyRecord(jti: jti, $0) }
    }

    /// ``record(jti:)`` of a verified token's `claims`, its table asked first: a client's own token (`sub` the client)
    /// in the client credentials grants, a token with `act` in the delegated tokens, any other in the owners' grants
    /// (then a relying party's mail grants).
    /// The same answer as ``record(jti:)`` (a `jti` is in one table only), in one query where the kind is right: on
    /// PostgreSQL each query is a round trip.
    /// - Throws: storage errors.
    public func record(for claims: OAuthAccessClaims) async throws -> OAuthGrantRecord? {
        let (jti, first) = (claims.jti, Self.firstLookup(claims))
        return try await database.read { try Self.anyRecord(jti: jti, $0, first: first) }
    }

    /// Whether ``recordOnCallingThread(for:)`` reads here: the database reads on the calling thread's own connection
    /// (SQLite), never on PostgreSQL, whose read is a round trip.
    public var readsOnCallingThread: Bool { database.callingThread != nil }

    /// ``record(for:)`` read on the calling thread with a read-only connection the thread owns: for short work run to
    /// completion on an event loop.
    /// - Throws: storage errors; `.misuse` where the database has no such connections (check ``readsOnCallingThread``).
    public func recordOnCallingThread(for claims: OAuthAccessClaims) throws -> OAuthGrantRecord? {
        guard let database = database.callingThread else {
            throw StorageError(.misuse, "this database does not read on the calling thread")
        }
        let (jti, first) = (claims.jti, Self.firstLookup(claims))
        return try database.readOnCallingThread { try Self.anyRecord(jti: jti, $0, first: first) }
    }

    /// The index in ``lookups`` of the table a token's kind names: a client's own token, one with `act`, any other.
    private static func firstLookup(_ claims: OAuthAccessClaims) -> Int {
        claims.ownerID == claims.clientID ? 1 : claims.act != nil ? 2 : 0
    }

    /// The grant tables' lookups in the order ``record(jti:)`` asks them: the owners' grants, the client credentials
    /// grants, the delegated tokens, then the relying parties' mail grants.
    private static let lookups: [@Sendable (String, any SQLConnection) throws -> OAuthGrantRecord?] = [
        { try ownerGrantRecord(jti: $0, $1) }, { try clientGrantRecord(jti: $0, $1) },
        { try delegatedRecord(jti: $0, $1) }, { try OIDCSignIns.mailRecord(jti: $0, $1) },
    ]

    /// The grant of access token `jti`, asking each table once: the one at ``lookups``' index `first`, then the others
    /// in their order.
    private static func anyRecord(jti: String, _ connection: any SQLConnection, first: Int = 0) throws
        -> OAuthGrantRecord?
    {
        for index in [first] + lookups.indices.filter({ $0 != first }) {
            if let found = try lookups[index](jti, connection) { return found }
        }
        return nil
    }

    /// The owner's grant of access token `jti` (`oauth_access_tokens` joined to `oauth_grants`).
    static func ownerGrantRecord(jti: String, _ connection: any SQLConnection) throws -> OAuthGrantRecord? {
        try connection.query(
            """
            SELECT g.id, g.owner_id, g.client_id, g.agent_id, g.scope, g.resource, g.expires_at, g.revoked_at,
            g.bound_account_id, t.expires_at AS token_expires_at
            FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id
            WHERE t.jti = ?
            """, [.text(jti)]
        ).first.flatMap(OAuthGrantRecord.init(row:))
    }

    // MARK: - Owners

    /// The live (unrevoked, unexpired) grants of `ownerID` with their clients' names, newest first. A consent whose
    /// authorization code (or device code) was never redeemed is no connected app (the app never got a token; the
    /// purge drops it once the code expired).
    /// - Throws: storage errors.
    public func connectedApps(ownerID: String, now: Int64) async throws -> [OAuthConnectedApp] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT g.id, g.client_id, c.client_name, g.scope, g.resource, g.agent_id, g.created_at,
                g.bound_account_id
                FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
                WHERE g.owner_id = ? AND g.revoked_at IS NULL AND g.expires_at > ?
                AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.grant_id = g.id AND k.used_at IS NULL)
                AND NOT EXISTS (SELECT 1 FROM oauth_device_codes d WHERE d.grant_id = g.id AND d.redeemed_at IS NULL)
                ORDER BY g.created_at DESC, g.id
                """,
                [.text(ownerID), .integer(now)]
            ).compactMap(Self.connectedApp)
        }
    }

    private static func connectedApp(_ row: SQLRow) -> OAuthConnectedApp? {
        guard let id = row.text("id"), let client = row.text("client_id"),
            let permissions = row.text("scope").flatMap(MailPermissions.init(scope:)),
            let resource = row.text("resource"), let created = row.int("created_at")
        else { return nil }
        // An inbox resource (`urn:atomicmail:agent:{id}`) binds the tokens to that inbox even on a grant approved
        // before the grant itself could be bound (migration 0026).
        let inboxResource = OAuthAccessClaims.inboxResourcePrefix
        let bound =
            row.text("bound_account_id")
            ?? (resource.hasPrefix(inboxResource) ? String(resource.dropFirst(inboxResource.count)) : nil)
        return OAuthConnectedApp(
            id: id, clientID: client, clientName: row.text("client_name"), permissions: permissions,
            resource: resource, defaultAccountID: row.text("agent_id"), grantedAt: created,
            boundAccountID: bound?.lowercased())
    }

    // MARK: - Shared statements

    static let grantColumns =
        "g.id, g.owner_id, g.client_id, g.agent_id, g.scope, g.resource, g.created_at, g.expires_at, g.revoked_at, "
        + "g.bound_account_id"

    static func grant(_ row: SQLRow) -> OAuthGrant? {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let client = row.text("client_id"),
            let permissions = row.text("scope").flatMap(MailPermissions.init(scope:)),
            let resource = row.text("resource"), let created = row.int("created_at"),
            let expires = row.int("expires_at")
        else { return nil }
        return OAuthGrant(
            id: id, ownerID: owner, clientID: client, agentID: row.text("agent_id"), permissions: permissions,
            resource: resource, createdAt: created, expiresAt: expires, boundAccountID: row.text("bound_account_id"))
    }

    /// Writes the grant an owner approved and marks its client used (so that the trim of unused registrations keeps
    /// it).
    static func insertGrant(_ grant: OAuthGrant, _ connection: any SQLConnection) throws {
        try connection.run(
            """
            INSERT INTO oauth_grants (id, owner_id, client_id, agent_id, scope, resource, created_at,
                expires_at, bound_account_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(grant.id), .text(grant.ownerID), .text(grant.clientID), grant.agentID.map { .text($0) } ?? .null,
                .text(grant.permissions.scope), .text(grant.resource), .integer(grant.createdAt),
                .integer(grant.expiresAt), grant.boundAccountID.map { .text($0) } ?? .null,
            ])
        try connection.run(
            "UPDATE oauth_clients SET first_granted_at = ? WHERE client_id = ? AND first_granted_at IS NULL",
            [.integer(grant.createdAt), .text(grant.clientID)])
    }

    static func insert(_ issue: OAuthIssue, grantID: String, now: Int64, _ connection: any SQLConnection) throws {
        try connection.run(
            "INSERT INTO oauth_refresh_tokens (token_digest, grant_id, issued_at, expires_at) VALUES (?, ?, ?, ?)",
            [.blob(OAuthDigest.of(issue.refreshToken)), .text(grantID), .integer(now), .integer(issue.refreshExpiresAt)])
        try connection.run(
            "INSERT INTO oauth_access_tokens (jti, grant_id, expires_at) VALUES (?, ?, ?)",
            [.text(issue.jti), .text(grantID), .integer(issue.accessExpiresAt)])
    }

    /// The one statement that revokes a grant.
    @discardableResult
    static func revoke(grantID: String, now: Int64, ownerID: String? = nil, _ connection: any SQLConnection) throws
        -> Bool
    {
        var statement = "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"
        var values: [SQLValue] = [.integer(now), .text(grantID)]
        if let ownerID {
            statement += " AND owner_id = ?"
            values.append(.text(ownerID))
        }
        return try connection.run(statement, values) == 1
    }
}
