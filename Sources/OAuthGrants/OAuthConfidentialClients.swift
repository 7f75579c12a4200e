import AuthCrypto
import Directory
import Storage

/// The confidential clients of migration 0069 (`oauth_confidential_clients` and their inboxes): made, listed,
/// rotated and deleted by the operator's commands, read by the authorization server, and the assertion ids
/// (`oauth_assertion_jtis`) that make a `private_key_jwt` assertion single-use on every instance.
public struct OAuthConfidentialClients: Sendable {
    let database: any SQLDatabase

    /// - Parameter database: a database with migration 0069 applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// What making a client needs.
    public struct Request: Sendable {
        /// The name it is listed by.
        public var name: String
        /// How it authenticates.
        public var authMethod: OAuthConfidentialClient.AuthMethod
        /// The widest permissions its tokens may carry.
        public var permissions: MailPermissions
        /// The inboxes its tokens reach: agent account ids or usernames (at least one unless it only introspects).
        public var inboxes: [String]
        /// Whether it may call `/oauth/introspect`.
        public var introspection: Bool
        /// Its keys inline (a JWKS document), for `private_key_jwt`.
        public var jwks: String?
        /// Where its keys are fetched, for `private_key_jwt`.
        public var jwksURI: String?

        /// A request; `jwks` or `jwksURI` is needed exactly for `private_key_jwt`.
        public init(
            name: String, authMethod: OAuthConfidentialClient.AuthMethod, permissions: MailPermissions,
            inboxes: [String], introspection: Bool, jwks: String? = nil, jwksURI: String? = nil
        ) {
            self.name = name
            self.authMethod = authMethod
            self.permissions = permissions
            self.inboxes = inboxes
            self.introspection = introspection
            self.jwks = jwks
            self.jwksURI = jwksURI
        }
    }

    /// Why a client could not be made.
    public enum CreationError: Error, Equatable, Sendable {
        /// No live agent inbox has this id or username.
        case unknownInbox(String)
    }

    /// Makes a client under a new random id; its secret (for the secret methods) is returned once, only its digest
    /// stored.
    /// - Parameter ownerID: the owner making an agent client of their own (who must hold its inboxes, checked by the
    ///   caller, and keep holding them for its tokens to reach them); nil for the operator's.
    /// - Throws: ``CreationError/unknownInbox(_:)``; storage errors.
    public func create(_ request: Request, ownerID: String? = nil, now: Int64) async throws
        -> (client: OAuthConfidentialClient, secret: String?)
    {
        let clientID = SecureRandom.identifier(byteCount: 16)
        let secret = request.authMethod.usesSecret ? OAuthDigest.newToken() : nil
        let inboxIDs: [String] = try await database.write { connection in
            try connection.transaction {
                var ids: [String] = []
                for inbox in request.inboxes {
                    guard
                        let id = try connection.query(
                            "SELECT id FROM agent_accounts WHERE (id = ? OR username = ?) AND revoked_at IS NULL",
                            [.text(inbox.lowercased()), .text(inbox.lowercased())]
                        ).first?.text("id")
                    else { throw CreationError.unknownInbox(inbox) }
                    if !ids.contains(id) { ids.append(id) }
                }
                try connection.run(
                    """
                    INSERT INTO oauth_confidential_clients (client_id, client_name, auth_method, secret_digest, jwks,
                        jwks_uri, scope, introspection, owner_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(clientID), .text(request.name), .text(request.authMethod.rawValue),
                        secret.map { .blob(OAuthDigest.of($0)) } ?? .null, request.jwks.map { .text($0) } ?? .null,
                        request.jwksURI.map { .text($0) } ?? .null, .text(request.permissions.scope),
                        .integer(request.introspection ? 1 : 0), ownerID.map { .text($0) } ?? .null, .integer(now),
                    ])
                for id in ids {
                    try connection.run(
                        "INSERT INTO oauth_confidential_client_inboxes (client_id, agent_id) VALUES (?, ?)",
                        [.text(clientID), .text(id)])
                }
                return ids
            }
        }
        let client = OAuthConfidentialClient(
            clientID: clientID, name: request.name, authMethod: request.authMethod,
            secretDigest: secret.map(OAuthDigest.of), jwks: request.jwks, jwksURI: request.jwksURI,
            permissions: request.permissions, introspection: request.introspection, ownerID: ownerID,
            inboxIDs: inboxIDs, createdAt: now)
        return (client, secret)
    }

    /// The client `clientID`, if any.
    public func client(id clientID: String) async throws -> OAuthConfidentialClient? {
        guard !clientID.isEmpty, clientID.utf8.count <= 256 else { return nil }
        return try await database.read { try Self.clients($0, where: "c.client_id = ?", [.text(clientID)]).first }
    }

    /// Whether ``clientOnCallingThread(id:)`` reads here: the database reads on the calling thread's own connection
    /// (SQLite), never on PostgreSQL, whose read is a round trip.
    public var readsOnCallingThread: Bool { database.callingThread != nil }

    /// ``client(id:)`` read on the calling thread with a read-only connection the thread owns (an event loop's short
    /// work); nil as well where the database has no such connections (check ``readsOnCallingThread``).
    /// - Throws: storage errors.
    public func clientOnCallingThread(id clientID: String) throws -> OAuthConfidentialClient? {
        guard !clientID.isEmpty, clientID.utf8.count <= 256, let database = database.callingThread else {
            return nil
        }
        return try database.readOnCallingThread {
            try Self.clients($0, where: "c.client_id = ?", [.text(clientID)]).first
        }
    }

    /// Every client, oldest first; with `ownerID`, that owner's agent clients only.
    public func list(ownerID: String? = nil) async throws -> [OAuthConfidentialClient] {
        try await database.read { connection in
            guard let ownerID else { return try Self.clients(connection, where: "1 = 1", []) }
            return try Self.clients(connection, where: "c.owner_id = ?", [.text(ownerID)])
        }
    }

    /// A new secret for `clientID`; the old one keeps working for `overlap` seconds (0: stops at once). Nil when
    /// there is no such client or it uses `private_key_jwt`.
    public func rotateSecret(clientID: String, overlap: Int64, now: Int64) async throws -> String? {
        let secret = OAuthDigest.newToken()
        let changed = try await database.write { connection in
            try connection.run(
                """
                UPDATE oauth_confidential_clients SET previous_secret_digest = secret_digest,
                    previous_secret_until = ?, secret_digest = ?
                WHERE client_id = ? AND auth_method <> 'private_key_jwt'
                """,
                [.integer(now + max(0, overlap)), .blob(OAuthDigest.of(secret)), .text(clientID)])
        }
        return changed == 1 ? secret : nil
    }

    /// Deletes `clientID` with its grants (their tokens stop working at once: every instance is told). False when
    /// there was none (with `ownerID`: none of that owner's).
    public func delete(clientID: String, ownerID: String? = nil) async throws -> Bool {
        try await database.write { connection in
            guard let ownerID else {
                return try connection.run(
                    "DELETE FROM oauth_confidential_clients WHERE client_id = ?", [.text(clientID)]) == 1
            }
            return try connection.run(
                "DELETE FROM oauth_confidential_clients WHERE client_id = ? AND owner_id = ?",
                [.text(clientID), .text(ownerID)]) == 1
        }
    }

    /// Records the assertion `jti` of `clientID`, valid until `expiresAt`; false when it was seen before and has not
    /// expired (a replay). The primary key decides between two instances racing with one assertion.
    /// - Throws: storage errors.
    public func recordAssertion(clientID: String, jti: String, expiresAt: Int64, now: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                try connection.run(
                    "DELETE FROM oauth_assertion_jtis WHERE client_id = ? AND jti = ? AND expires_at <= ?",
                    [.text(clientID), .text(jti), .integer(now)])
                return try connection.run(
                    """
                    INSERT INTO oauth_assertion_jtis (client_id, jti, expires_at) VALUES (?, ?, ?)
                    ON CONFLICT (client_id, jti) DO NOTHING
                    """,
                    [.text(clientID), .text(jti), .integer(expiresAt)]) == 1
            }
        }
    }

    static func clients(_ connection: any SQLConnection, where condition: String, _ values: [SQLValue])
        throws -> [OAuthConfidentialClient]
    {
        // One row per live inbox a client is bound to (one with a null inbox when none is), the client's rows
        // together: the clients and their inboxes in one round trip.
        let rows = try connection.query(
            """
            SELECT c.client_id, c.client_name, c.auth_method, c.secret_digest, c.previous_secret_digest,
                c.previous_secret_until, c.jwks, c.jwks_uri, c.scope, c.introspection, c.owner_id, c.created_at,
                a.id AS agent_id
            FROM oauth_confidential_clients c
            LEFT JOIN oauth_confidential_client_inboxes i ON i.client_id = c.client_id
            LEFT JOIN agent_accounts a ON a.id = i.agent_id AND a.revoked_at IS NULL
            WHERE \(condition) ORDER BY c.created_at, c.client_id, a.id
            """, values)
        var groups: [ArraySlice<SQLRow>] = []
        var start = rows.startIndex
        for index in rows.indices.dropFirst() where rows[index].text("client_id") != rows[start].text("client_id") {
            groups.append(rows[start..<index])
            start = index
        }
        if start < rows.endIndex { groups.append(rows[start...]) }
        return groups.compactMap { group in
            guard let row = group.first, let id = row.text("client_id"), let name = row.text("client_name"),
                let method = row.text("auth_method").flatMap(OAuthConfidentialClient.AuthMethod.init(rawValue:)),
                let permissions = row.text("scope").flatMap(MailPermissions.init(scope:)),
                let created = row.int("created_at")
            else { return nil }
            let inboxes = group.compactMap { $0.text("agent_id") }
            return OAuthConfidentialClient(
                clientID: id, name: name, authMethod: method, secretDigest: row.blob("secret_digest"),
                previousSecretDigest: row.blob("previous_secret_digest"),
                previousSecretUntil: row.int("previous_secret_until"), jwks: row.text("jwks"),
                jwksURI: row.text("jwks_uri"), permissions: permissions, introspection: row.int("introspection") == 1,
                ownerID: row.text("owner_id"), inboxIDs: inboxes, createdAt: created)
        }
    }
}
