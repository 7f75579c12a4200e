import HTTP1
import PosternTestSupport
import Testing

@testable import AgentAuth

@Suite("Storage failures")
struct AgentStorageFailureTests {
    // SQLite's `query_only` makes the one writer refuse writes; PostgreSQL's outage is shown by PostgresClient's tests.
    @Test(
        "A read-only database answers 503 Service temporarily unavailable, without internals",)
    func unavailable() async throws {
        let harness = try AgentHarness(.sqlite, difficulty: 0)
        let (_, session) = try await harness.signup("storagebot")
        try harness.database.writeSync { try $0.execute("PRAGMA query_only = ON") }
        let response = try await harness.session("username", "storagebot2")
        expectError(response, .unavailable)
        #expect(response.headers["Retry-After"] == "2")
        #expect(!String(decoding: response.body, as: UTF8.self).lowercased().contains("sqlite"))
        // The store's state, not a defect: nothing is reported for the log.
        #expect(harness.unexpected.all.isEmpty)
        // Reads still work: capability needs only a read.
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: session).status.code == 200)
    }

    @Test(
        "Any other storage failure is a bare 500 in the agent error shape, reported with the request id",
        arguments: StorageBackend.allCases)
    func internalError(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, session) = try await harness.signup("brokenbot")
        // PostgreSQL drops the tables that reference it (owners' links, grants) only when told to.
        let cascade = harness.database.dialect == .postgres ? " CASCADE" : ""
        try harness.database.writeSync { try $0.execute("DROP TABLE agent_accounts" + cascade) }
        let response = await harness.send(.POST, "/api/v1/capability", bearer: session)
        expectError(response, .internalError)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("agent_accounts"))
        #expect(harness.unexpected.all == ["test"])
    }
}
