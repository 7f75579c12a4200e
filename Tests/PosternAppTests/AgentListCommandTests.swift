import AgentAuth
import AgentClient
import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern agent list`: every agent account with its owner, creation and last login with its API key.
@Suite("postern agent list")
struct AgentListCommandTests {
    @Test(
        "address, owner, created and last login: never until the API key logs in, then its time; revoked marked",
        arguments: StorageBackend.allCases)
    func list(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let configuration = server.runtime.configuration, logger = Logger(label: "agent-list-test")
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let client = try AgentClient(solver: AgentPoWSolver(threads: 2))
        let signup = try await client.signup(url: url, username: "listed", events: nil)
        let apiKey = try #require(signup.apiKey)
        _ = try await client.signup(url: url, username: "gone1", events: nil)
        #expect(try await AgentAccountStore(database: server.runtime.database).revoke(username: "gone1", now: 1_800_000_000))
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "correct horse", logger: logger)
        let ownerID = try #require(
            try await server.runtime.database.read { try $0.query("SELECT id FROM owners").first?.text("id") })
        _ = try await AgentOwnedInboxes(
            accounts: AgentAccountStore(database: server.runtime.database), domain: configuration.agent.inboxDomain,
            clock: { 1_800_000_000 }
        ).createInbox(username: "held1", ownerID: ownerID)

        let before = try await Operations.listAgents(configuration: configuration, logger: logger)
        #expect(before.count == 3)
        let listed = try #require(before.first { $0.hasPrefix("listed@agents.localhost  ") })
        #expect(listed.contains("  owner -  created 20") && listed.hasSuffix("  last login never"), "\(listed)")
        let gone = try #require(before.first { $0.hasPrefix("gone1@agents.localhost  ") })
        #expect(gone.contains("  revoked 2027-01-15T08:00:00Z"), "\(gone)")
        #expect(before.contains { $0.hasPrefix("held1@agents.localhost  owner ada@example.com  created 2027-01-15") })

        _ = try await client.login(url: url, apiKey: apiKey, events: nil)
        let after = try await Operations.listAgents(configuration: configuration, logger: logger)
        let loggedIn = try #require(after.first { $0.hasPrefix("listed@agents.localhost  ") })
        #expect(loggedIn.contains("  last login 20") && !loggedIn.contains("never"), "\(loggedIn)")
    }
}
