import AuthCrypto
import Directory
import JWT
import OAuthGrants
import PosternTestSupport
import Testing

/// A confidential client's own token (client credentials, issue 86) at the resource side: it reaches the inboxes the
/// operator bound the client to, whoever holds them, and nothing of the owner's.
@Suite("A client's own token reaches the inboxes its client is bound to")
struct OAuthClientGrantReachTests {
    /// A client bound to `inboxes` and a live /mcp token of its own; the token and its `jti`.
    static func clientToken(_ h: AgentsHarness, inboxes: [String]) async throws -> (token: String, jti: String) {
        let now = OwnedInboxesFixture.now()
        let made = try await OAuthConfidentialClients(database: h.test.database).create(
            .init(name: "bot", authMethod: .clientSecretBasic, permissions: .read, inboxes: inboxes, introspection: false),
            now: now)
        let client = made.client.clientID
        let jti = SecureRandom.identifier(byteCount: 16)
        try await OAuthGrantStore(database: h.test.database).issueClientGrant(
            jti: jti, clientID: client, permissions: .read, resource: h.mcp, now: now, expiresAt: now + 900)
        let claims = OAuthAccessClaims(ownerID: client, clientID: client, resource: h.mcp, permissions: .read, jti: jti)
        return (try h.keys.sign(claims.claims(issuer: h.base, issuedAt: now, ttl: 900), for: .oauthAccess), jti)
    }

    @Test(
        "/api/v1/agents and the owners' principals show the bound inbox only; revoked, the token opens nothing",
        arguments: StorageBackend.allCases)
    func reach(_ backend: StorageBackend) async throws {
        let h = try await AgentsHarness.start(backend)
        // Eve's inbox is another owner's: the operator may bind a client to any live inbox.
        let (token, jti) = try await Self.clientToken(h, inboxes: [h.eve.accountID])
        let response = try await h.client.request(
            "GET", "/api/v1/agents", headers: [("Authorization", "Bearer " + token)])
        #expect(response.status == 200, "\(response.text)")
        let agents = try #require(try response.json()["agents"] as? [[String: Any]])
        #expect(agents.map { $0["accountId"] as? String } == [h.eve.accountID])

        let grant = try await h.verifier.grant(for: token, resources: [.mcp])
        #expect(grant.clientInboxIDs == [h.eve.accountID] && grant.ownerID == grant.clientID)
        #expect(try await h.principals.inboxes(of: grant).map(\.accountID) == [h.eve.accountID])
        #expect(try await h.principals.principal(grant, accountID: h.eve.accountID).accountID == h.eve.accountID)
        await #expect(throws: AuthenticationRefusal.self) {
            try await h.principals.principal(grant, accountID: h.ada.accountID)
        }
        guard case .inbox(let chosen) = try await h.principals.choose(grant, agent: nil) else {
            Issue.record("one bound inbox is the default")
            return
        }
        #expect(chosen.accountID == h.eve.accountID && chosen.permissions == .read)

        #expect(try await OAuthGrantStore(database: h.test.database).revokeClientGrant(
            jti: jti, clientID: grant.clientID, now: OwnedInboxesFixture.now()))
        h.cache.invalidate(grantID: jti)
        let revoked = try await h.client.request("GET", "/api/v1/agents", headers: [("Authorization", "Bearer " + token)])
        #expect(revoked.status == 401)
    }
}
