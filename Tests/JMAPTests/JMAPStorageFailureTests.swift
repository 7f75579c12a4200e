import Foundation
import PosternTestSupport
import Storage
import Testing

@Suite("JMAP storage failures")
struct JMAPStorageFailureTests {
    // SQLite's `query_only` makes the one writer refuse writes; PostgreSQL's outage is shown by PostgresClient's tests.
    @Test(
        "an upload the database cannot store answers 503 with Retry-After, as a problem document")
    func uploadUnavailable() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("readonly")
        try await harness.database.write { try $0.execute("PRAGMA query_only = ON") }
        let response = try await harness.client.request(
            "POST", "/jmap/upload/\(agent.accountID)",
            headers: [("Authorization", "Bearer \(agent.capability)"), ("Content-Type", "text/plain")],
            body: Array("blob".utf8))
        #expect(response.status == 503, "\(response.text)")
        #expect(response.header("Retry-After") == "1")
        #expect(response.header("Content-Type") == "application/problem+json")
    }
}
