import AuthCrypto
import JSON
import OAuthGrants

/// The clients of `oauth_clients` as the authorization server reads them: registrations, lookups, and cached
/// client ID metadata documents, over the grants target's rows (``OAuthClientRecords``).
public struct OAuthClientStore: Sendable {
    let records: OAuthClientRecords

    /// - Parameter records: the `oauth_clients` rows.
    public init(records: OAuthClientRecords) {
        self.records = records
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
        try await records.insertRegistered(
            clientID: clientID, authMethod: registration.authMethod.rawValue, secretDigest: secret.map(OAuthDigest.of),
            clientName: registration.clientName, redirectURIs: Self.uris(registration),
            metadata: Self.metadata(registration), now: now)
        return Registered(clientID: clientID, secret: secret, issuedAt: now)
    }

    /// The metadata-document client `clientID` while its cached copy is fresh.
    func cachedDocument(id clientID: String, now: Int64) async throws -> OAuthClient? {
        try await records.freshDocument(clientID: clientID, now: now).flatMap { Self.client(id: clientID, $0) }
    }

    /// Stores (or refreshes) the metadata-document client `clientID` as `registration`, fresh until `until`.
    func cacheDocument(id clientID: String, _ registration: OAuthClientRegistration, now: Int64, until: Int64)
        async throws
    {
        try await records.upsertDocument(
            clientID: clientID, clientName: registration.clientName, redirectURIs: Self.uris(registration),
            metadata: Self.metadata(registration), now: now, until: until)
    }

    /// The client `clientID`, if known.
    public func client(id clientID: String) async throws -> OAuthClient? {
        guard !clientID.isEmpty, clientID.utf8.count <= 2_048 else { return nil }
        return try await records.row(clientID: clientID).flatMap { Self.client(id: clientID, $0) }
    }

    static func client(id clientID: String, _ row: OAuthClientRecords.Row) -> OAuthClient? {
        guard let method = OAuthClient.AuthMethod(rawValue: row.authMethod),
            let uris = (try? JSONValue.parse(Array(row.redirectURIs.utf8)))?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        let metadata = row.metadata.flatMap { try? JSONValue.parse(Array($0.utf8)) }
        let scopes = metadata?["scope"]?.stringValue.flatMap(OAuthScope.parse)
        var client = OAuthClient(
            clientID: clientID, authMethod: method, secretDigest: row.secretDigest, name: row.clientName,
            redirectURIs: uris, scopes: scopes)
        if let grantTypes = metadata?["grant_types"]?.arrayValue {
            client.refreshes = grantTypes.contains(.string("refresh_token"))
            client.takesDeviceCodes = grantTypes.contains(.string(OAuthClientRegistration.deviceCodeGrantType))
        }
        return client
    }

    private static func metadata(_ registration: OAuthClientRegistration) -> String {
        String(decoding: JSONValue.object(registration.echoed).serialize(), as: UTF8.self)
    }

    private static func uris(_ registration: OAuthClientRegistration) -> String {
        String(decoding: JSONValue.array(registration.redirectURIs.map(JSONValue.string)).serialize(), as: UTF8.self)
    }
}
