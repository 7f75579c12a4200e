import Storage

/// The `oauth_clients` table as rows: registrations, cached client ID metadata documents, lookups, and the trim of
/// registrations nobody used. The authorization server's `OAuthClientStore` turns them into clients.
public struct OAuthClientRecords: Sendable {
    let database: any SQLDatabase

    /// - Parameter database: a database with migration 0016 applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// One client as stored.
    public struct Row: Sendable, Equatable {
        /// `none` or `client_secret_post`.
        public let authMethod: String
        /// The SHA-256 of the secret (``OAuthDigest``), for `client_secret_post` clients.
        public let secretDigest: [UInt8]?
        public let clientName: String?
        /// The redirect URIs, a JSON array.
        public let redirectURIs: String
        /// The registration as echoed, a JSON object.
        public let metadata: String?
    }

    /// Stores a registered client.
    /// - Parameters:
    ///   - redirectURIs: a JSON array.
    ///   - metadata: the registration as echoed, a JSON object.
    public func insertRegistered(
        clientID: String, authMethod: String, secretDigest: [UInt8]?, clientName: String?, redirectURIs: String,
        metadata: String, now: Int64
    ) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oauth_clients (client_id, kind, auth_method, secret_digest, client_name, redirect_uris,
                    metadata, created_at)
                VALUES (?, 'registered', ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(clientID), .text(authMethod), secretDigest.map { .blob($0) } ?? .null,
                    clientName.map { .text($0) } ?? .null, .text(redirectURIs), .text(metadata), .integer(now),
                ])
        }
    }

    /// Stores (or refreshes) the metadata-document client `clientID`, fresh until `until`.
    public func upsertDocument(
        clientID: String, clientName: String?, redirectURIs: String, metadata: String, now: Int64, until: Int64
    ) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO oauth_clients (client_id, kind, auth_method, client_name, redirect_uris, metadata,
                    created_at, cached_until)
                VALUES (?, 'metadata_document', 'none', ?, ?, ?, ?, ?)
                ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name,
                    redirect_uris = excluded.redirect_uris, metadata = excluded.metadata,
                    cached_until = excluded.cached_until
                """,
                [
                    .text(clientID), clientName.map { .text($0) } ?? .null, .text(redirectURIs), .text(metadata),
                    .integer(now), .integer(until),
                ])
        }
    }

    /// The metadata-document client `clientID` while its cached copy is fresh at `now`.
    public func freshDocument(clientID: String, now: Int64) async throws -> Row? {
        try await database.read { connection in
            guard
                try !connection.query(
                    """
                    SELECT 1 FROM oauth_clients WHERE client_id = ? AND kind = 'metadata_document'
                    AND cached_until > ?
                    """,
                    [.text(clientID), .integer(now)]
                ).isEmpty
            else { return nil }
            return try Self.row(clientID: clientID, connection)
        }
    }

    /// The client `clientID`, if stored.
    public func row(clientID: String) async throws -> Row? {
        try await database.read { try Self.row(clientID: clientID, $0) }
    }

    static func row(clientID: String, _ connection: any SQLConnection) throws -> Row? {
        guard
            let row = try connection.query(
                """
                SELECT auth_method, secret_digest, client_name, redirect_uris, metadata FROM oauth_clients
                WHERE client_id = ?
                """,
                [.text(clientID)]
            ).first, let method = row.text("auth_method"), let uris = row.text("redirect_uris")
        else { return nil }
        return Row(
            authMethod: method, secretDigest: row.blob("secret_digest"), clientName: row.text("client_name"),
            redirectURIs: uris, metadata: row.text("metadata"))
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
