import AuthCrypto
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Storage
import Testing

/// A sign-in provider trusted to assert identities, as a test publishes it: one issuer, its keys, the owners its
/// subjects sign in as.
final class TestIdentityIssuers: OAuthIdentityIssuers, @unchecked Sendable {
    let issuer: String
    let keys: PublishedKeySet
    // Written before the requests that read it, from the test's one task.
    var owners: [String: String] = [:]

    init(issuer: String, keys: PublishedKeySet) {
        self.issuer = issuer
        self.keys = keys
    }

    func keys(issuer: String, refresh: Bool) async -> PublishedKeySet? { issuer == self.issuer ? keys : nil }

    func owner(issuer: String, subject: String) async throws -> String? {
        issuer == self.issuer ? owners[subject] : nil
    }
}

/// Signs identity assertions (ID-JAG) with an Ed25519 key.
struct IDJAGSigner {
    let key: Ed25519PrivateKey
    let kid: String
    let published: PublishedKeySet

    init(kid: String = "idp-key") throws {
        key = try Ed25519PrivateKey.generate()
        self.kid = kid
        let jwks = JSONValue.object([("keys", .array([JWK.okpPublicJWK(key.publicKey, kid: kid)]))]).serialize()
        published = try PublishedKeySet(jwks: jwks)
    }

    /// An assertion of `subject` at `issuer` for `client`, with these claims changed (nil removes one) and `typ`.
    func assertion(
        issuer: String = ExchangeFixture.idp, subject: String = "alice", client: String, now: Int64,
        typ: String = OAuthIdentityAssertion.type, _ changes: [String: JSONValue?] = [:]
    ) throws -> String {
        var claims = JWTClaims([
            ("iss", .string(issuer)), ("sub", .string(subject)), ("aud", .string(OAuthServerIssuer.value)),
            ("client_id", .string(client)), ("jti", .string(SecureRandom.identifier(byteCount: 8))),
            ("iat", .int(now)), ("exp", .int(now + 300)), ("scope", .string("mail.read mail.send")),
            ("resource", .string(jmapResource)),
        ])
        for (name, value) in changes { claims[name] = value }
        let header = JSONValue.object([("alg", .string("EdDSA")), ("typ", .string(typ)), ("kid", .string(kid))])
        let input = Base64URL.encode(header.serialize()) + "." + Base64URL.encode(JSONValue.object(claims.members).serialize())
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
}

/// The harness's issuer, named for the signer.
enum OAuthServerIssuer {
    static let value = issuer
}

/// An owner with an app's access token (a code-flow grant for JMAP, mail.read and mail.send), an agent client the
/// owner allowed to act for them, an introspecting resource server, and a provider trusted to assert identities.
struct ExchangeFixture {
    static let idp = "https://idp.example"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    static let idJAGType = "urn:ietf:params:oauth:token-type:id-jag"
    static let exchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let bearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    let harness: OAuthHarness
    let issuers: TestIdentityIssuers
    let signer: IDJAGSigner
    let owner: (id: String, inbox: String)
    let app: (id: String, secret: String?)
    let grant: OAuthGrant
    /// The owner's access token from the code flow.
    let subject: String
    /// An agent client the owner made and allowed.
    let agent: (id: String, secret: String)
    /// A resource server that may introspect.
    let inspector: (id: String, secret: String)

    init(_ backend: StorageBackend, configure: (inout OAuthConfiguration) -> Void = { _ in }) async throws {
        let signer = try IDJAGSigner()
        let issuers = TestIdentityIssuers(issuer: Self.idp, keys: signer.published)
        let harness = try OAuthHarness(backend, identityIssuers: issuers) {
            $0.jwtBearer = true
            configure(&$0)
        }
        let owner = try await harness.owner()
        issuers.owners["alice"] = owner.id
        let app = try await harness.registerClient()
        let (grant, subject) = try await Self.ownerToken(harness, app: app.id, owner: owner)
        let agent = try await Self.client(harness, owner: owner.id, inbox: owner.inbox)
        let allowed = try await harness.service.grants.allowActor(
            ownerID: owner.id, clientID: agent.id, now: harness.clock.now)
        #expect(allowed == .allowed)
        let inspector = try await Self.client(harness, owner: nil, inbox: nil, introspection: true)
        self.signer = signer
        self.issuers = issuers
        self.harness = harness
        self.owner = owner
        self.app = app
        self.grant = grant
        self.subject = subject
        self.agent = agent
        self.inspector = inspector
    }

    /// A code-flow grant of `owner` for `app` with `scopes`, and its access token.
    static func ownerToken(
        _ harness: OAuthHarness, app: String, owner: (id: String, inbox: String),
        scopes: [String] = ["mail.read", "mail.send"], onlyInbox: String? = nil
    ) async throws -> (OAuthGrant, String) {
        let issued = try await harness.code(
            clientID: app, ownerID: owner.id, agentID: owner.inbox, scopes: scopes, boundAccountID: onlyInbox)
        let response = await harness.exchange(issued.code, clientID: app, verifier: issued.verifier)
        return (issued.grant, try #require(OAuthHarness.json(response)?["access_token"]?.stringValue))
    }

    /// A confidential client (client_secret_basic); `owner` nil for the operator's.
    static func client(
        _ harness: OAuthHarness, owner: String?, inbox: String?, introspection: Bool = false,
        method: OAuthConfidentialClient.AuthMethod = .clientSecretBasic, jwks: String? = nil,
        inboxes: [String]? = nil, permissions: MailPermissions = .all
    ) async throws -> (id: String, secret: String) {
        let made = try await OAuthConfidentialClients(database: harness.test.database).create(
            .init(
                name: "agent", authMethod: method, permissions: permissions,
                inboxes: inboxes ?? inbox.map { [$0] } ?? [],
                introspection: introspection, jwks: jwks),
            ownerID: owner, now: harness.clock.now)
        return (made.client.clientID, made.secret ?? "")
    }

    /// Another agent client of the owner, allowed to act for them.
    func allowedAgent() async throws -> (id: String, secret: String) {
        let made = try await Self.client(harness, owner: owner.id, inbox: owner.inbox)
        #expect(try await allow(made.id) == .allowed)
        return made
    }

    /// Lets `clientID` act for the fixture's owner.
    func allow(_ clientID: String) async throws -> OAuthGrantStore.ActorAllowance {
        try await harness.service.grants.allowActor(ownerID: owner.id, clientID: clientID, now: harness.clock.now)
    }

    /// A token exchange of `subject` by `client` (HTTP Basic) with `extra` fields.
    func exchange(
        _ subject: String, as client: (id: String, secret: String), type: String = accessTokenType,
        _ extra: [(String, String)] = []
    ) async -> HTTPResponse {
        await harness.send(
            .POST, "/oauth/token",
            form: [("grant_type", Self.exchangeGrant), ("subject_token", subject), ("subject_token_type", type)]
                + extra,
            headers: [ConfidentialFixture.basic(client.id, client.secret)])
    }

    /// A JWT bearer grant of `assertion` by `client` with `extra` fields.
    func bearer(_ assertion: String, as client: (id: String, secret: String), _ extra: [(String, String)] = []) async
        -> HTTPResponse
    {
        await harness.send(
            .POST, "/oauth/token", form: [("grant_type", Self.bearerGrant), ("assertion", assertion)] + extra,
            headers: [ConfidentialFixture.basic(client.id, client.secret)])
    }

    /// The access token of a 200 answer.
    static func token(_ response: HTTPResponse) throws -> String {
        try #require(
            OAuthHarness.json(response)?["access_token"]?.stringValue, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// The payload of `token`, unchecked (the test reads what was minted).
    static func claims(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".").map(String.init)
        return try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
    }

    /// What introspection answers for `token`.
    func introspect(_ token: String) async -> JSONValue? {
        OAuthHarness.json(
            await harness.send(
                .POST, "/oauth/introspect", form: [("token", token)],
                headers: [ConfidentialFixture.basic(inspector.id, inspector.secret)]))
    }

    /// How many delegated tokens were written.
    func delegatedCount() async throws -> Int {
        try await harness.test.database.read { connection in
            Int(try connection.query("SELECT COUNT(*) AS n FROM oauth_delegated_tokens").first?.int("n") ?? -1)
        }
    }
}
