import AgentAuth
import Audit
import Directory
import HTTP1
import OAuthGrants
import Owners
import PosternTestSupport
import Testing

/// `/owner/clients` through its routes: an owner's agent clients, bound to inboxes the owner holds (issue 86).
@Suite("Owners: agent clients (client credentials) on /owner/clients")
struct OwnerClientPagesTests {
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(
        "make a client for an inbox one holds (secret shown once), not for another's; its reach follows the holding; delete",
        arguments: StorageBackend.allCases)
    func flow(_ backend: StorageBackend) async throws {
        var harness = try OwnersHarness(backend)
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: harness.test.database), domain: "agents.localhost",
            clock: { 1_800_000_000 })
        let clients = OAuthConfidentialClients(database: harness.test.database)
        OwnerClientPages(
            service: harness.service, inboxes: inboxes, clients: clients, enabled: true, clock: { 1_800_000_000 }
        ).register(into: &harness.router)
        #expect(await harness.send(.GET, "/owner/clients").headers["Location"] == "/owner/sign-in?next=%2Fowner%2Fclients")
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        let own = try await inboxes.createInbox(username: "ada-bot", ownerID: ada.id).inbox
        let foreign = try await inboxes.createInbox(username: "bob-bot", ownerID: bob.id).inbox
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/clients")))

        let stranger = await harness.send(
            .POST, "/owner/clients",
            form: ["name": "bot", "inbox": foreign.accountID, "scope": "mail.read", "csrf_token": csrf])
        #expect(stranger.status.code == 422)
        let noScope = await harness.send(
            .POST, "/owner/clients", form: ["name": "bot", "inbox": own.accountID, "csrf_token": csrf])
        #expect(noScope.status.code == 422)
        let forged = await harness.send(
            .POST, "/owner/clients", form: ["name": "bot", "inbox": own.accountID, "scope": "mail.read", "csrf_token": "x"])
        #expect(forged.status.code == 403)
        #expect(try await clients.list(ownerID: ada.id).isEmpty)

        let made = await harness.send(
            .POST, "/owner/clients",
            form: ["name": "nightly <bot>", "inbox": own.accountID, "scope": "mail.read", "csrf_token": csrf])
        #expect(made.status.code == 201)
        let client = try #require(try await clients.list(ownerID: ada.id).first)
        #expect(client.ownerID == ada.id && client.inboxIDs == [own.accountID] && client.permissions == .read)
        #expect(Self.text(made).contains("<code id=\"client-id\">\(client.clientID)</code>"))
        #expect(Self.text(made).contains("<pre id=\"client-secret\" class=\"key\">"))
        #expect(Self.text(made).contains("nightly &lt;bot&gt;") && !Self.text(made).contains("nightly <bot>"))
        #expect(!Self.text(await harness.send(.GET, "/owner/clients")).contains("client-secret"))

        // Its tokens reach the inbox while Ada holds it, and nothing once she lets it go.
        let grant = AccessGrant(
            ownerID: client.clientID, grantID: "g", clientID: client.clientID, resource: .mcp, permissions: .read,
            defaultInboxID: nil, clientInboxIDs: client.inboxIDs, clientOwnerID: ada.id)
        #expect(try await inboxes.inboxes(reachedBy: grant).map(\.accountID) == [own.accountID])
        #expect(try await inboxes.inbox(accountID: own.accountID, reachedBy: grant) != nil)
        _ = try await inboxes.unlink(accountID: own.accountID, ownerID: ada.id)
        #expect(try await inboxes.inboxes(reachedBy: grant).isEmpty)
        #expect(try await inboxes.inbox(accountID: own.accountID, reachedBy: grant) == nil)

        let other = await harness.send(.POST, "/owner/clients/nope/delete", form: ["csrf_token": csrf])
        #expect(other.status.code == 404)
        let deleted = await harness.send(.POST, "/owner/clients/\(client.clientID)/delete", form: ["csrf_token": csrf])
        #expect(deleted.status.code == 200 && Self.text(deleted).contains("None yet."))
        #expect(try await clients.list(ownerID: ada.id).isEmpty)
        let actions = try await harness.auditLog.events(since: nil, ownerID: ada.id, limit: 100).map(\.action)
        #expect(actions.contains(.agentClientCreated) && actions.contains(.agentClientDeleted))
    }
}
