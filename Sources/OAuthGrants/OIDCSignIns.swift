import AuthCrypto
import Storage

/// The relying parties' side of the grant model (migration 0075): remembered consents, authorization codes, the
/// access tokens they issued (audience: userinfo, or the mail resource for a mail grant, migration 0079) and which
/// owner sessions signed into which relying party. The one writer of `oidc_consents`, `oidc_codes`,
/// `oidc_access_tokens`, `oidc_session_clients`, `oidc_mail_grants` and `oidc_refresh_tokens`.
///
/// A code's single use is one conditional `UPDATE`, so exactly one redemption wins across instances; a second
/// presentation revokes the access token the first one issued (OAuth 2.1 section 4.1.3).
public struct OIDCSignIns: Sendable {
    let database: any SQLDatabase
    /// Told each mail grant revoked here (migration 0079), after the write: the instance's cache of live grants.
    let observer: (any OAuthGrantRevocationObserver)?

    /// - Parameters:
    ///   - database: a database with migrations 0075 and 0079 applied.
    ///   - observer: told each mail grant revoked here (``OAuthGrantStore/openIDSignIns`` passes the grant store's).
    public init(database: any SQLDatabase, observer: (any OAuthGrantRevocationObserver)? = nil) {
        self.database = database
        self.observer = observer
    }

    // MARK: - Consent

    /// The scopes `ownerID` consented to for `clientID`, if the consent is remembered.
    public func consent(ownerID: String, clientID: String) async throws -> [String]? {
        try await database.read { connection in
            try connection.query(
                "SELECT scope FROM oidc_consents WHERE owner_id = ? AND client_id = ?", [.text(ownerID), .text(clientID)]
            ).first?.text("scope").map { $0.split(separator: " ").map(String.init) }
        }
    }

    /// Remembers `ownerID`'s consent to `scopes` for `clientID` (the union with what was remembered before).
    public func remember(ownerID: String, clientID: String, scopes: [String], now: Int64) async throws {
        let known = try await consent(ownerID: ownerID, clientID: clientID) ?? []
        let union = known + scopes.filter { !known.contains($0) }
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oidc_consents (owner_id, client_id, scope, granted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (owner_id, client_id) DO UPDATE SET scope = excluded.scope, granted_at = excluded.granted_at
                """, [.text(ownerID), .text(clientID), .text(union.joined(separator: " ")), .integer(now)])
        }
    }

    /// Every consent `ownerID` gave a relying party, oldest first (`postern owner show`).
    public func consents(ownerID: String) async throws -> [(clientID: String, scopes: [String], grantedAt: Int64)] {
        try await database.read { connection in
            try connection.query(
                "SELECT client_id, scope, granted_at FROM oidc_consents WHERE owner_id = ? ORDER BY granted_at, client_id",
                [.text(ownerID)]
            ).compactMap { row in
                guard let client = row.text("client_id"), let scope = row.text("scope"), let at = row.int("granted_at")
                else { return nil }
                return (client, scope.split(separator: " ").map(String.init), at)
            }
        }
    }

    /// Forgets `ownerID`'s consent to `clientID` (the next sign-in asks again) and revokes the access tokens the app
    /// holds for the owner (userinfo refuses them at once) and its mail grants (their refresh tokens die, and the mail
    /// doors refuse their access tokens at once); false when no consent was remembered.
    @discardableResult
    public func revokeConsent(ownerID: String, clientID: String, now: Int64) async throws -> Bool {
        let (forgot, grants) = try await database.write { connection in
            try connection.transaction {
                try connection.run(
                    """
                    UPDATE oidc_access_tokens SET revoked_at = ?
                    WHERE owner_id = ? AND client_id = ? AND revoked_at IS NULL
                    """, [.integer(now), .text(ownerID), .text(clientID)])
                let grants = try connection.query(
                    "SELECT id FROM oidc_mail_grants WHERE owner_id = ? AND client_id = ? AND revoked_at IS NULL",
                    [.text(ownerID), .text(clientID)]
                ).compactMap { $0.text("id") }
                for id in grants { try Self.revokeMailGrant(id: id, now: now, connection) }
                let forgot =
                    try connection.run(
                        "DELETE FROM oidc_consents WHERE owner_id = ? AND client_id = ?",
                        [.text(ownerID), .text(clientID)]) == 1
                return (forgot, grants)
            }
        }
        for id in grants { observer?.grantRevoked(id) }
        return forgot
    }

    // MARK: - Codes

    /// Stores a code for `signIn`, good for `lifetime` seconds; returns the code (the table holds its digest).
    public func issueCode(_ signIn: OIDCSignIn, now: Int64, lifetime: Int64) async throws -> String {
        let code = OAuthDigest.newToken()
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oidc_codes (code_digest, client_id, owner_id, redirect_uri, code_challenge, nonce, scope,
                    auth_time, method, session_digest, expires_at, claims)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(OAuthDigest.of(code)), .text(signIn.clientID), .text(signIn.ownerID),
                    .text(signIn.redirectURI), signIn.codeChallenge.map { .text($0) } ?? .null,
                    signIn.nonce.map { .text($0) } ?? .null, .text(signIn.scopes.joined(separator: " ")),
                    .integer(signIn.authTime), .text(signIn.method), .blob(signIn.sessionDigest),
                    .integer(now + lifetime), signIn.claims.isEmpty ? .null : .text(signIn.claims.normalJSON),
                ])
        }
        return code
    }

    /// What a presented code is, before anything is written.
    public enum CodeCheck: Sendable, Equatable {
        /// Unused, unexpired, this client's and for this redirect URI: redeem it.
        case ready(OIDCSignIn)
        /// Already used: a replay, which revokes what the first use issued.
        case replayed
        /// Unknown, another client's, expired, or for another redirect URI: `invalid_grant` with this description.
        case refused(String)
    }

    /// Reads the code `code` presented by `clientID` with `redirectURI`.
    public func checkCode(_ code: String, clientID: String, redirectURI: String?, now: Int64) async throws -> CodeCheck {
        try await database.read { connection in
            try Self.checkCode(code, clientID: clientID, redirectURI: redirectURI, now: now, connection)
        }
    }

    /// ``checkCode(_:clientID:redirectURI:now:)`` on `connection`: for a read made with others in one transaction (the
    /// token endpoint's on an event loop, ``OIDCCodeExchangeRead``).
    static func checkCode(
        _ code: String, clientID: String, redirectURI: String?, now: Int64, _ connection: any SQLConnection
    ) throws -> CodeCheck {
        guard
            let row = try connection.query(
                """
                SELECT client_id, owner_id, redirect_uri, code_challenge, nonce, scope, auth_time, method,
                    session_digest, expires_at, used_at, claims
                FROM oidc_codes WHERE code_digest = ?
                """, [.blob(OAuthDigest.of(code))]
            ).first, let owner = row.text("owner_id"), let registered = row.text("redirect_uri"),
            let scope = row.text("scope"), let authTime = row.int("auth_time"), let method = row.text("method"),
            let session = row.blob("session_digest"), let expires = row.int("expires_at")
        else { return .refused("The authorization code is unknown.") }
        guard row.text("client_id") == clientID else {
            return .refused("The authorization code was issued to another client.")
        }
        if row.int("used_at") != nil { return .replayed }
        guard expires > now else { return .refused("The authorization code has expired.") }
        guard let redirectURI, redirectURI == registered else {
            return .refused("redirect_uri differs from the authorization request's.")
        }
        return .ready(
            OIDCSignIn(
                clientID: clientID, ownerID: owner, redirectURI: registered,
                codeChallenge: row.text("code_challenge"), nonce: row.text("nonce"),
                scopes: scope.split(separator: " ").map(String.init), authTime: authTime, method: method,
                sessionDigest: session, claims: OIDCClaimsRequest(normalJSON: row.text("claims"))))
    }

    /// Marks `code` used if nobody did first, records the access token `jti` it issues (until `expiresAt`) and that
    /// the session signed into the client. False when the code was used before: then the access token of its first
    /// use is revoked, and its mail grant.
    /// - Parameter mail: the mail grant the sign-in makes and its first tokens (`issue.jti` is `jti`), when it asked
    ///   for mail scopes the relying party may have.
    public func redeem(
        _ code: String, signIn: OIDCSignIn, jti: String, expiresAt: Int64, now: Int64,
        mail: (grant: OIDCMailGrant, issue: OAuthIssue)? = nil
    ) async throws -> Bool {
        let (won, revoked) = try await database.write(
            Self.redemption(code, signIn: signIn, jti: jti, expiresAt: expiresAt, now: now, mail: mail))
        if let revoked { observer?.grantRevoked(revoked) }
        return won
    }

    /// ``redeem(_:signIn:jti:expiresAt:now:mail:)`` for a thread that must not wait (the token endpoint's short work
    /// on an event loop, SQLite): the write is handed to the writer (group commit) and `completion` gets whether the
    /// code was won, on the writer's thread once durable; false when the database has no such writes (PostgreSQL, see
    /// ``callingThread``).
    public func redeem(
        _ code: String, signIn: OIDCSignIn, jti: String, expiresAt: Int64, now: Int64,
        mail: (grant: OIDCMailGrant, issue: OAuthIssue)?,
        then completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) {
        guard let database = callingThread else {
            return completion(.failure(StorageError(.misuse, "the database writes only from a task")))
        }
        database.write(Self.redemption(code, signIn: signIn, jti: jti, expiresAt: expiresAt, now: now, mail: mail)) {
            [observer] result in
            if case .success((_, let revoked?)) = result { observer?.grantRevoked(revoked) }
            completion(result.map(\.won))
        }
    }

    /// The redemption's transaction: whether the code was won, and the mail grant its replay revoked.
    private static func redemption(
        _ code: String, signIn: OIDCSignIn, jti: String, expiresAt: Int64, now: Int64,
        mail: (grant: OIDCMailGrant, issue: OAuthIssue)?
    ) -> @Sendable (any SQLConnection) throws -> (won: Bool, revoked: String?) {
        let digest = SQLValue.blob(OAuthDigest.of(code))
        // Only what userinfo answers goes with the access token (a mail grant's first one too).
        let userinfo = OIDCClaimsRequest(idToken: [], userinfo: signIn.claims.userinfo)
        let userinfoClaims: SQLValue = userinfo.isEmpty ? .null : .text(userinfo.normalJSON)
        return { connection -> (won: Bool, revoked: String?) in
            try connection.transaction {
                let won = try connection.run(
                    "UPDATE oidc_codes SET used_at = ?, access_jti = ? WHERE code_digest = ? AND used_at IS NULL",
                    [.integer(now), .text(jti), digest])
                guard won == 1 else {
                    return (false, try Self.revokeFirstUse(of: digest, now: now, connection))
                }
                if let mail {
                    try Self.insert(mail.grant, issue: mail.issue, claims: userinfoClaims, now: now, connection)
                } else {
                    try connection.run(
                        """
                        INSERT INTO oidc_access_tokens (jti, client_id, owner_id, scope, expires_at, claims)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(jti), .text(signIn.clientID), .text(signIn.ownerID),
                            .text(signIn.scopes.joined(separator: " ")), .integer(expiresAt), userinfoClaims,
                        ])
                }
                try connection.run(
                    """
                    INSERT INTO oidc_session_clients (session_digest, client_id, owner_id, signed_in_at)
                    VALUES (?, ?, ?, ?)
                    ON CONFLICT (session_digest, client_id) DO UPDATE SET signed_in_at = excluded.signed_in_at
                    """, [.blob(signIn.sessionDigest), .text(signIn.clientID), .text(signIn.ownerID), .integer(now)])
                return (true, nil)
            }
        }
    }

    /// Revokes the access token a used code issued (its replay was seen), and its mail grant.
    public func revokeReplayed(_ code: String, now: Int64) async throws {
        let revoked = try await database.write { connection in
            try connection.transaction { try Self.revokeFirstUse(of: .blob(OAuthDigest.of(code)), now: now, connection) }
        }
        if let revoked { observer?.grantRevoked(revoked) }
    }

    /// ``revokeReplayed(_:now:)`` for a thread that must not wait, as ``redeem(_:signIn:jti:expiresAt:now:mail:then:)``
    /// writes: `completion` is called on the writer's thread once the revocation is durable.
    public func revokeReplayed(
        _ code: String, now: Int64, then completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        guard let database = callingThread else {
            return completion(.failure(StorageError(.misuse, "the database writes only from a task")))
        }
        let digest = SQLValue.blob(OAuthDigest.of(code))
        database.write({ connection in
            try connection.transaction { try Self.revokeFirstUse(of: digest, now: now, connection) }
        }) { [observer] result in
            if case .success(let revoked?) = result { observer?.grantRevoked(revoked) }
            completion(result.map { _ in () })
        }
    }

    /// The database when its reads and writes may be made from an event loop's short work (SQLite: a read-only
    /// connection of the calling thread's own, and writes handed to the writer without waiting); nil on PostgreSQL,
    /// whose every read and write is a round trip.
    public var callingThread: (any ThreadOwnedReading)? { database.callingThread }

    /// Revokes the access token the code `digest` issued and its mail grant; the grant's id when one was revoked.
    private static func revokeFirstUse(of digest: SQLValue, now: Int64, _ connection: any SQLConnection) throws
        -> String?
    {
        try connection.run(
            """
            UPDATE oidc_access_tokens SET revoked_at = ?
            WHERE revoked_at IS NULL AND jti = (SELECT access_jti FROM oidc_codes WHERE code_digest = ?)
            """, [.integer(now), digest])
        guard
            let grant = try connection.query(
                """
                SELECT t.grant_id FROM oidc_codes c JOIN oidc_access_tokens t ON t.jti = c.access_jti
                WHERE c.code_digest = ?
                """, [digest]
            ).first?.text("grant_id"), try revokeMailGrant(id: grant, now: now, connection)
        else { return nil }
        return grant
    }

    // MARK: - Access tokens

    /// The owner, client, scopes and userinfo claims asked for by name of the live (unrevoked, unexpired) access token
    /// `jti`; a mail grant's token only while its grant is live.
    public func accessToken(jti: String, now: Int64) async throws
        -> (ownerID: String, clientID: String, scopes: [String], claims: OIDCClaimsRequest)?
    {
        try await database.read { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT owner_id, client_id, scope, claims FROM oidc_access_tokens t
                    WHERE jti = ? AND revoked_at IS NULL AND expires_at > ?
                    AND (grant_id IS NULL OR EXISTS (SELECT 1 FROM oidc_mail_grants g
                        WHERE g.id = t.grant_id AND g.revoked_at IS NULL AND g.expires_at > ?))
                    """, [.text(jti), .integer(now), .integer(now)]
                ).first, let owner = row.text("owner_id"), let client = row.text("client_id"),
                let scope = row.text("scope")
            else { return nil }
            return (
                owner, client, scope.split(separator: " ").map(String.init),
                OIDCClaimsRequest(normalJSON: row.text("claims"))
            )
        }
    }

    // MARK: - Sessions

    /// The relying parties session `digest` signed into, and forgets them (the session is ending): each is told by
    /// back-channel logout.
    public func endSession(digest: [UInt8], now: Int64) async throws -> [(clientID: String, ownerID: String)] {
        try await database.write { connection in
            try connection.transaction {
                let rows = try connection.query(
                    "SELECT client_id, owner_id FROM oidc_session_clients WHERE session_digest = ? ORDER BY client_id",
                    [.blob(digest)])
                try connection.run("DELETE FROM oidc_session_clients WHERE session_digest = ?", [.blob(digest)])
                return rows.compactMap { row in
                    guard let client = row.text("client_id"), let owner = row.text("owner_id") else { return nil }
                    return (client, owner)
                }
            }
        }
    }

    /// Deletes codes a day past their expiry (a late replay is still recognised until then), access-token, refresh-token
    /// and mail-grant rows past theirs, and the sign-ins of owner sessions that no longer exist (signed out, expired and purged); returns how
    /// many rows went. ``OAuthPurge`` runs it.
    static func purge(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run("DELETE FROM oidc_codes WHERE expires_at < ?", [.integer(now - 86_400)])
            + connection.run("DELETE FROM oidc_access_tokens WHERE expires_at < ?", [.integer(now)])
            + connection.run("DELETE FROM oidc_refresh_tokens WHERE expires_at < ?", [.integer(now)])
            + connection.run("DELETE FROM oidc_mail_grants WHERE expires_at < ?", [.integer(now)])
            + connection.run(
                """
                DELETE FROM oidc_session_clients
                WHERE NOT EXISTS (SELECT 1 FROM owner_sessions s WHERE s.token_digest = oidc_session_clients.session_digest)
                """, [])
    }
}
