import AuthCrypto
import JSON
import Storage

/// The `oauth_clients` table: registrations, lookups, and the trim of registrations nobody used.
public struct OAuthClientStore: Sendable {
    let database: any SQLDatabase

    /// - Parameter database: a database with migration 0016 applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// A registered client: its id, and its secret when it authenticates with one (shown once).
    public struct Registered: Sendable {
        /// The new client's id.
        public let clientID: String
        /// The secret of a `client_secret_post` client (only its digest is stored); nil for public clients.
        public let secret: String?
        /// Unix seconds.
        public let issuedAt: Int64
    }

    /// Stores `registration` under a new random client id; issues a secret for `client_secret_post` clients.
    public func register(_ registration: OAuthClientRegistration, now: Int64) async throws -> Registered {
        let clientID = SecureRandom.identifier(byteCount: 16)
        let secret = registration.authMethod == .clientSecretPost ? OAuthDigest.newToken() : nil
        let metadata = String(decoding: JSONValue.object(registration.echoed).serialize(), as: UTF8.self)
        let uris = String(
            decoding: JSONValue.array(registration.redirectURIs.map(JSONValue.string)).serialize(), as: UTF8.self)
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oauth_clients (client_id, kind, auth_method, secret_digest, client_name, redirect_uris,
                    metadata, created_at)
                VALUES (?, 'registered', ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(clientID), .text(registration.authMethod.rawValue),
                    secret.map { .blob(OAuthDigest.of($0)) } ?? .null, registration.clientName.map { .text($0) } ?? .null,
                    .text(uris), .text(metadata), .integer(now),
                ])
        }
        return Registered(clientID: clientID, secret: secret, issuedAt: now)
    }

    /// The metadata-document client `clientID` while its cached copy is fresh.
    func cachedDocument(id clientID: String, now: Int64) async throws -> OAuthClient? {
        try await database.read { connection in
            guard
                try !connection.query(
                    "SELECT 1 FROM oauth_clients WHERE client_id = ? AND kind = 'metadata_document' AND cached_until > ?",
                    [.text(clientID), .integer(now)]
                ).isEmpty
            else { return nil }
            return try Self.client(id: clientID, connection)
        }
    }

    /// Stores (or refreshes) the metadata-document client `clientID` as `registration`, fresh until `until`.
    func cacheDocument(id clientID: String, _ registration: OAuthClientRegistration, now: Int64, until: Int64)
        async throws
    {
        let metadata = String(decoding: JSONValue.object(registration.echoed).serialize(), as: UTF8.self)
        let uris = String(
            decoding: JSONValue.array(registration.redirectURIs.map(JSONValue.string)).serialize(), as: UTF8.self)
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oauth_clients (client_id, kind, auth_method, client_name, redirect_uris, metadata, created_at,
                    cached_until)
                VALUES (?, 'metadata_document', 'none', ?, ?, ?, ?, ?)
                ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name,
                    redirect_uris = excluded.redirect_uris, metadata = excluded.metadata,
                    cached_until = excluded.cached_until
                """,
                [
                    .text(clientID), registration.clientName.map { .text($0) } ?? .null, .text(uris), .text(metadata),
                    .integer(now), .integer(until),
                ])
        }
    }

    /// The client `clientID`, if known.
    public func client(id clientID: String) async throws -> OAuthClient? {
        guard !clientID.isEmpty, clientID.utf8.count <= 2_048 else { return nil }
        return try await database.read { try Self.client(id: clientID, $0) }
    }

    static func client(id clientID: String, _ connection: any SQLConnection) throws -> OAuthClient? {
        guard
            let row = try connection.query(
                "SELECT auth_method, secret_digest, client_name, redirect_uris, metadata FROM oauth_clients WHERE client_id = ?",
                [.text(clientID)]
            ).first,
            let method = row.text("auth_method").flatMap(OAuthClient.AuthMethod.init(rawValue:)),
            let urisText = row.text("redirect_uris"),
            let uris = (try? JSONValue.parse(Array(urisText.utf8)))?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        let metadata = row.text("metadata").flatMap { try? JSONValue.parse(Array($0.utf8)) }
        let scopes = metadata?["scope"]?.stringValue.flatMap(OAuthScope.parse)
        var client = OAuthClient(
            clientID: clientID, authMethod: method, secretDigest: row.blob("secret_digest"),
            name: row.text("client_name"), redirectURIs: uris, scopes: scopes)
        if let grantTypes = metadata?["grant_types"]?.arrayValue {
            client.refreshes = grantTypes.contains(.string("refresh_token"))
        }
        return client
    }

    /// Deletes registrations that never got a grant and are older than `unusedLifetime`, and stale metadata-document
    /// copies without grants; returns how many.
    public static func trimUnused(_ connection: any SQLConnection, now: Int64, unusedLifetime: Int64) throws -> Int {
        try connection.run(
            """
            DELETE FROM oauth_clients WHERE kind = 'metadata_document' AND cached_until < ?
            AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)
            """,
            [.integer(now)])
        + connection.run(
            """
            DELETE FROM oauth_clients WHERE kind = 'registered' AND first_granted_at IS NULL AND created_at < ?
            AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)
            """,
            [.integer(now - unusedLifetime)])
    }
}
