import Foundation
import Logging
import PosternTestSupport
import ServerKit
import Testing

/// `GET /api/v1/agents` (`api-docs/oauth-mcp-contract.md` 1.11), through its routes over an owner's inboxes.
@Suite("GET /api/v1/agents lists the token owner's inboxes")
struct OAuthAgentsTests {
    @Test(
        "a /jmap or /mcp token lists exactly the owner's inboxes, with millisecond ISO timestamps and _next",
        arguments: StorageBackend.allCases)
    func lists(_ backend: StorageBackend) async throws {
        let h = try await AgentsHarness.start(backend)
        defer { Task { await h.stop() } }
        for resource in [h.jmap, h.mcp] {
            let (token, _) = try h.token(resource: resource, scope: "mail.read")
            let response = try await h.client.request(
                "GET", "/api/v1/agents", headers: [("Authorization", "Bearer " + token)])
            #expect(response.status == 200, "\(response.text)")
            #expect(response.header("Cache-Control") == "no-store")
            let body = try response.json()
            let agents = try #require(body["agents"] as? [[String: Any]])
            // Oldest link first; the two were linked in the same second, so their order is the ids'.
            #expect(agents.map { $0["accountId"] as? String } == [h.ada.accountID, h.bob.accountID].sorted())
            let ada = try #require(agents.first { $0["accountId"] as? String == h.ada.accountID })
            #expect(ada["inboxId"] as? String == h.ada.username && ada["status"] as? String == "active")
            let stamp = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#)
            for agent in agents {
                #expect((agent["linkedAt"] as? String)?.wholeMatch(of: stamp) != nil)
                #expect((agent["activatedAt"] as? String)?.wholeMatch(of: stamp) != nil)
            }
            #expect((body["_next"] as? [String])?.isEmpty == false)
        }
    }

    @Test(
        "401 invalid_token: no bearer, an inbox-bound or foreign token, a revoked grant",
        arguments: StorageBackend.allCases)
    func refuses(_ backend: StorageBackend) async throws {
        let h = try await AgentsHarness.start(backend)
        defer { Task { await h.stop() } }
        let (bound, _) = try h.token(resource: "urn:atomicmail:agent:" + h.ada.accountID)
        let (revoked, grant) = try h.token(resource: h.jmap)
        try await h.revoke(grant)
        let none = try await h.client.request("GET", "/api/v1/agents")
        #expect(none.status == 401 && none.header("WWW-Authenticate") == "Bearer")
        #expect(try none.json()["error"] as? String == "invalid_token")
        for token in [bound, revoked, h.adaKey] {
            let response = try await h.client.request(
                "GET", "/api/v1/agents", headers: [("Authorization", "Bearer " + token)])
            #expect(response.status == 401)
            #expect(try response.json()["error"] as? String == "invalid_token")
            #expect(response.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
        }
    }
}

/// `GET /api/v1/agents` over a fresh database of the given backend holding an owner's inboxes
/// (``OwnedInboxesFixture``); the fixture's members read through the harness.
struct AgentsHarness: OwnedInboxesHarness, @unchecked Sendable {
    let test: TestDatabase
    let owners: OwnedInboxesFixture
    let client: RouteClient

    static func start(_ backend: StorageBackend) async throws -> AgentsHarness {
        let test = try backend.makeDatabase(logger: Logger(label: "oauth-agents-tests"))
        let owners = try await OwnedInboxesFixture(database: test.database, base: "http://agents.test")
        var router = ContextRouter()
        owners.registerAgents(into: &router)
        return AgentsHarness(test: test, owners: owners, client: RouteClient(router: router, requestID: "agents"))
    }

    func stop() async {}
}
