import AgentAuth
import AuthCrypto
import CustomDomains
import Directory
import Foundation
import HTTP1
import JWT
import OAuthGrants
import OAuthResource
import ServerKit
import Storage
import Testing

/// The resource side of OAuth over one database, without the authorization server: an owner holding two agent
/// inboxes and another owner holding one, access tokens minted as the authorization server mints them (RFC 9068,
/// EdDSA, one `oauth_access_tokens` row each) for grants written directly (``OAuthGrantRows``), and the verifier,
/// the owners' principals and the inbox API keys that JMAP, MCP and `GET /api/v1/agents` are built with. What the
/// JMAP and MCP harnesses share; each builds its own service over it.
public struct OwnedInboxesFixture: Sendable {
    /// The public base URL (no trailing slash): the issuer, and the audiences' prefix.
    public let base: String
    /// The agent inbox domain.
    public let agentDomain: String
    public let rows: OAuthGrantRows
    public let keys: JWTKeySet
    /// Live grants, cached as the composed server caches them (on PostgreSQL only).
    public let cache: OAuthGrantCache
    public let verifier: OAuthAccessVerifier
    /// The owners' agent inboxes.
    public let inboxes: AgentOwnedInboxes
    /// The agent inboxes as a directory: who may receive, and who an owner's inbox is.
    public let directory: AgentInboxDirectory
    public let principals: OwnerPrincipals
    /// The inboxes' API keys (`Authorization: Bearer`, `ApiKey` or `X-API-Key`).
    public let apiKeys: any PrincipalAuthenticator
    public let owner: String
    /// The owner's inboxes, oldest first.
    public let ada: OwnedInbox
    public let bob: OwnedInbox
    /// Another owner's inbox.
    public let eve: OwnedInbox
    /// Ada's inbox API key.
    public let adaKey: String

    /// The JMAP resource.
    public var jmap: String { base + "/jmap" }
    /// The MCP resource.
    public var mcp: String { base + "/mcp" }
    /// The verifier as the surfaces take it.
    public var grants: any AccessGrantAuthenticator { verifier }

    /// - Parameters:
    ///   - database: a migrated database of the backend under test.
    ///   - base: the public base URL, without a trailing slash.
    ///   - quota: each agent inbox's quota.
    ///   - keys: the keys tokens are signed with (a running server's, to test it); a new Ed25519 key when nil.
    ///   - cache: the grant cache revocations drop grants from (a running server's, to test it).
    public init(
        database: any SQLDatabase, base: String, agentDomain: String = "agents.test", quota: Int64 = 41_943_040,
        keys: JWTKeySet? = nil, cache: OAuthGrantCache = OAuthGrantCache()
    ) async throws {
        self.base = base
        self.agentDomain = agentDomain
        rows = OAuthGrantRows(database: database)
        self.keys = try keys ?? JWTKeySet(
            keys: [try .ed25519(kid: "ed-owned", privateKey: Ed25519PrivateKey.generate())], activeHMAC: nil,
            activeRSA: nil, activeEdDSA: "ed-owned")
        self.cache = cache
        var resource = OAuthResourceConfiguration(issuer: base, baseURL: base)
        resource.cacheGrants = database.dialect == .postgres
        resource.rateLimits.enabled = false
        verifier = OAuthAccessVerifier(
            configuration: resource, keys: self.keys, grants: OAuthGrantStore(database: database, observer: cache),
            cache: cache, clock: Self.now)
        let accounts = AgentAccountStore(database: database)
        inboxes = AgentOwnedInboxes(accounts: accounts, domain: agentDomain, clock: { 1_800_000_000 })
        directory = AgentInboxDirectory(
            accounts: accounts, claims: CustomDomains(database: database), domain: agentDomain, quota: quota)
        principals = OwnerPrincipals(inboxes: inboxes, directory: directory)
        apiKeys = AgentAPIKeyAuthenticator(accounts: accounts, inboxDomain: agentDomain, directory: directory)
        owner = try rows.owner()
        let other = try rows.owner()
        let (ada, adaKey) = try await inboxes.createInbox(username: "ada-" + Self.suffix(), ownerID: owner)
        self.ada = ada
        self.adaKey = adaKey
        bob = try await inboxes.createInbox(username: "bob-" + Self.suffix(), ownerID: owner).inbox
        eve = try await inboxes.createInbox(username: "eve-" + Self.suffix(), ownerID: other).inbox
    }

    /// The wall clock, in Unix seconds: tokens are minted and verified at the real time.
    @Sendable public static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    private static func suffix() -> String { String(SecureRandom.hex(byteCount: 4)) }

    /// Adds `GET /api/v1/agents` (the token owner's inboxes) to `router`.
    public func registerAgents(into router: inout ContextRouter) {
        OAuthAgentsService(verifier: verifier, inboxes: inboxes, publicURL: base).register(into: &router)
    }

    /// JMAP's bearer chain as the server builds it: access tokens open the inbox `X-Atomic-Account-Id` names;
    /// every other bearer goes to the agent capability token's authenticator (over this fixture's keys, which hold no
    /// RS256 key: no capability token passes).
    public var jmapAuthenticator: any PrincipalAuthenticator {
        OAuthJMAPAuthenticator(
            verifier: verifier, principals: principals,
            fallback: CapabilityAuthenticator(
                keys: keys, issuer: base, audience: base, lifetime: 3600, directory: directory, clock: Self.now))
    }

    /// A grant of the owner for a new client, and an access token of it; the token and the grant id.
    /// `inboxOnly`: the grant is bound to that inbox ("only this inbox" at consent).
    public func token(
        resource: String, scope: String = "mail.read mail.send", defaultInbox: String? = nil, inboxOnly: String? = nil
    ) throws -> (token: String, grant: String) {
        let client = try rows.client()
        let grant = try rows.grant(
            owner: owner, client: client, scope: scope, resource: resource, agentID: defaultInbox,
            boundAccountID: inboxOnly)
        return (try accessToken(grant: grant, client: client, resource: resource, scope: scope), grant)
    }

    /// A new access token of `grant` (recorded in `oauth_access_tokens`), as a refresh mints one.
    public func accessToken(grant: String, client: String, resource: String, scope: String) throws -> String {
        let now = Self.now()
        let jti = SecureRandom.identifier(byteCount: 16)
        try rows.token(jti: jti, grant: grant, expiresAt: now + 900)
        var claims = JWTClaims(
            issuer: base, subject: owner, purpose: .oauthAccess, issuedAt: now, ttl: 900, jti: jti)
        claims["aud"] = .string(resource)
        claims["client_id"] = .string(client)
        claims["scope"] = .string(scope)
        return try keys.sign(claims, for: .oauthAccess)
    }

    /// An agent client of the owner's (client credentials), bound to `inboxes` (default Ada's) with `permissions`,
    /// which the owner lets act for them; its client id.
    public func agentClient(inboxes: [String]? = nil, permissions: MailPermissions = .all) async throws -> String {
        let made = try await OAuthConfidentialClients(database: rows.database).create(
            .init(
                name: "agent", authMethod: .clientSecretBasic, permissions: permissions,
                inboxes: inboxes ?? [ada.accountID], introspection: false),
            ownerID: owner, now: Self.now())
        _ = try await OAuthGrantStore(database: rows.database).allowActor(
            ownerID: owner, clientID: made.client.clientID, now: Self.now())
        return made.client.clientID
    }

    /// An access token exchanged from `grant`'s for the agent clients `actors` (the current one first) acting for
    /// the owner, as token exchange mints it (RFC 8693: `act` nested from the current actor, one
    /// `oauth_delegated_tokens` row kept under `grant`), narrowed to `inboxIDs` (default Ada's, as
    /// ``agentClient(inboxes:permissions:)`` binds its clients).
    public func delegatedToken(
        grant: String, actors: [String], resource: String, scope: String = "mail.read mail.send",
        inboxIDs: [String]? = nil
    ) async throws -> String {
        let inboxIDs = inboxIDs ?? [ada.accountID]
        let now = Self.now()
        let jti = SecureRandom.identifier(byteCount: 16)
        let chain = try #require(OAuthActorChain(actors))
        let claims = OAuthAccessClaims(
            ownerID: owner, clientID: chain.current, resource: resource,
            permissions: try #require(MailPermissions(scope: scope)), jti: jti, act: chain)
        try await OAuthGrantStore(database: rows.database).issueDelegatedToken(
            OAuthDelegatedToken(
                jti: jti, grantID: grant, parentJTI: nil, ownerID: owner, clientID: chain.current, act: chain,
                permissions: claims.permissions, resource: resource, agentID: nil, boundAccountID: nil,
                inboxIDs: inboxIDs, expiresAt: now + 900),
            now: now)
        return try keys.sign(claims.claims(issuer: base, issuedAt: now, ttl: 900), for: .oauthAccess)
    }

    /// Revokes `grant` as the authorization server's revocation path does: the row, then this instance's cache.
    public func revoke(_ grant: String) async throws {
        try await rows.revoke(grant, at: Self.now())
        cache.invalidate(grantID: grant)
    }

    /// The calls that send one message from `from` to `to`: the draft `d` (call `c`, with `keywords` when given),
    /// its submission `s` (call `s`, with the members of `submission` besides `create`).
    public static func sendCalls(
        from: String, to: String, keywords: [String: Bool]? = nil, submission: [String: Any] = [:]
    ) -> [[Any]] {
        var draft: [String: Any] = [
            "mailboxIds": ["drafts": true], "from": [["email": from]], "to": [["email": to]],
            "subject": "hello", "textBody": [["partId": "b", "type": "text/plain"]],
            "bodyValues": ["b": ["value": "hi"]],
        ]
        if let keywords { draft["keywords"] = keywords }
        return [
            ["Email/set", ["create": ["d": draft]], "c"],
            ["EmailSubmission/set", submission.merging(["create": ["s": ["emailId": "#d"]]]) { $1 }, "s"],
        ]
    }
}

/// A harness over an ``OwnedInboxesFixture``: the fixture's members read through it (`h.ada`, `h.mcp`), and its
/// owner's tokens are minted and revoked through it.
@dynamicMemberLookup
public protocol OwnedInboxesHarness {
    var owners: OwnedInboxesFixture { get }
}

extension OwnedInboxesHarness {
    public subscript<T>(dynamicMember path: KeyPath<OwnedInboxesFixture, T>) -> T { owners[keyPath: path] }

    /// A grant of the owner for a new client and an access token of it (``OwnedInboxesFixture/token``).
    public func token(
        resource: String, scope: String = "mail.read mail.send", defaultInbox: String? = nil, inboxOnly: String? = nil
    ) throws -> (token: String, grant: String) {
        try owners.token(resource: resource, scope: scope, defaultInbox: defaultInbox, inboxOnly: inboxOnly)
    }

    /// A new access token of `grant`, as a refresh mints one.
    public func accessToken(grant: String, client: String, resource: String, scope: String) throws -> String {
        try owners.accessToken(grant: grant, client: client, resource: resource, scope: scope)
    }

    /// Revokes `grant` as the authorization server's revocation path does: the row, then the cache.
    public func revoke(_ grant: String) async throws { try await owners.revoke(grant) }
}
