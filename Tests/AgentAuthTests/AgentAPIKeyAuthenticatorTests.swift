import AgentAuth
import CustomDomains
import Directory
import PosternTestSupport
import Testing

@Suite("AgentAPIKeyAuthenticator")
struct AgentAPIKeyAuthenticatorTests {
    @Test(
        "a live agent's key is its principal; a wrong, foreign or revoked key is none",
        arguments: StorageBackend.allCases)
    func keys(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        let (key, _) = try await harness.signup("keyholder")
        let accounts = AgentAccountStore(database: harness.database)
        let domain = "agents.localhost"
        let authenticator = AgentAPIKeyAuthenticator(
            accounts: accounts, inboxDomain: domain,
            directory: AgentInboxDirectory(
                accounts: accounts, claims: CustomDomains(database: accounts.database), domain: domain, quota: 1000))
        let principal = try #require(try await authenticator.principal(for: Credentials(bearerToken: key)))
        #expect(principal.mailbox.address == "keyholder@agents.localhost")
        #expect(try await accounts.liveAccount(id: principal.accountID)?.username == "keyholder")
        #expect(try await authenticator.principal(for: Credentials(bearerToken: key + "x")) == nil)
        #expect(try await authenticator.principal(for: Credentials(bearerToken: "not-a-key")) == nil)
        #expect(try await accounts.revoke(username: "keyholder", now: harness.clock.now))
        #expect(try await authenticator.principal(for: Credentials(bearerToken: key)) == nil)
    }
}
