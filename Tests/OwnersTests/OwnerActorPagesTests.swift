import AgentAuth
import Audit
import Directory
import HTTP1
import OAuthGrants
import Owners
import PosternTestSupport
import Testing

/// `/owner/actors` through its routes: the agent clients an owner lets act for them (token exchange, issue 86 item 3).
@Suite("Owners: agents acting for the owner on /owner/actors")
struct OwnerActorPagesTests {
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(
        "allow one's own or the operator's client (not another owner's, not without CSRF), list it escaped, remove it",
        arguments: StorageBackend.allCases)
    func flow(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let grants = OAuthGrantStore(database: harness.test.database)
        let clients = OAuthConfidentialClients(database: harness.test.database)
        OwnerActorPages(
            service: harness.service, grants: grants, clients: clients, enabled: true, clock: { 1_800_000_000 }
        ).register(into: &harness.router)
        #expect(await harness.send(.GET, "/owner/actors").headers["Location"] == "/owner/sign-in?next=%2Fowner%2Factors")
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        func client(_ name: String, owner: String?) async throws -> String {
            try await clients.create(
                .init(name: name, authMethod: .clientSecretBasic, permissions: .read, inboxes: [], introspection: true),
                ownerID: owner, now: 1_800_000_000
            ).client.clientID
        }
        let own = try await client("ada's <agent>", owner: ada.id)
        let bobs = try await client("bob's agent", owner: bob.id)
        let operators = try await client("operator's agent", owner: nil)
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let page = await harness.send(.GET, "/owner/actors")
        let csrf = try #require(OwnersHarness.csrf(in: page))
        #expect(Self.text(page).contains("<option value=\"\(own)\">ada&#39;s &lt;agent&gt;</option>"))
        #expect(!Self.text(page).contains(bobs))

        #expect(await harness.send(.POST, "/owner/actors", form: ["client_id": bobs, "csrf_token": csrf]).status.code == 422)
        #expect(await harness.send(.POST, "/owner/actors", form: ["client_id": "nope", "csrf_token": csrf]).status.code == 422)
        #expect(await harness.send(.POST, "/owner/actors", form: ["client_id": own, "csrf_token": "x"]).status.code == 403)
        #expect(try await grants.actors(ownerID: ada.id).isEmpty)

        let allowed = await harness.send(.POST, "/owner/actors", form: ["client_id": own, "csrf_token": csrf])
        #expect(allowed.status.code == 201)
        #expect(Self.text(allowed).contains("id=\"actor-\(own)\"") && Self.text(allowed).contains("ada&#39;s &lt;agent&gt;"))
        #expect(!Self.text(allowed).contains("<option value=\"\(own)\""))
        #expect(await harness.send(.POST, "/owner/actors", form: ["client_id": operators, "csrf_token": csrf]).status.code == 201)
        #expect(await harness.send(.POST, "/owner/actors", form: ["client_id": own, "csrf_token": csrf]).status.code == 200)
        // Both allowed at the fixed clock's second: listed by client id, as the tie-break orders them.
        #expect(try await grants.actors(ownerID: ada.id).map(\.clientID) == [own, operators].sorted())
        #expect(try await grants.actorAllowed(ownerID: ada.id, clientID: own))
        #expect(try await !grants.actorAllowed(ownerID: bob.id, clientID: own))

        #expect(await harness.send(.POST, "/owner/actors/\(bobs)/remove", form: ["csrf_token": csrf]).status.code == 404)
        #expect(await harness.send(.POST, "/owner/actors/\(own)/remove", form: ["csrf_token": "x"]).status.code == 403)
        let removed = await harness.send(.POST, "/owner/actors/\(own)/remove", form: ["csrf_token": csrf])
        #expect(removed.status.code == 200 && !Self.text(removed).contains("id=\"actor-\(own)\""))
        #expect(try await grants.actors(ownerID: ada.id).map(\.clientID) == [operators])
        let actions = try await harness.auditLog.events(since: nil, ownerID: ada.id, limit: 100).map(\.action)
        #expect(actions.filter { $0 == .actorAllowed }.count == 2 && actions.filter { $0 == .actorRemoved }.count == 1)
    }

    @Test("off, the page says so and allows no client", arguments: [StorageBackend.sqlite])
    func off(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let grants = OAuthGrantStore(database: harness.test.database)
        OwnerActorPages(
            service: harness.service, grants: grants, clients: OAuthConfidentialClients(database: harness.test.database),
            enabled: false, clock: { 1_800_000_000 }
        ).register(into: &harness.router)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let page = await harness.send(.GET, "/owner/actors")
        #expect(Self.text(page).contains("id=\"actors-off\"") && !Self.text(page).contains("allow-actor-form"))
        let csrf = try #require(OwnersHarness.csrf(in: page))
        #expect(await harness.send(.POST, "/owner/actors", form: ["client_id": "x", "csrf_token": csrf]).status.code == 403)
        #expect(try await grants.actors(ownerID: ada.id).isEmpty)
    }
}
