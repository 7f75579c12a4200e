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

    @Test("a method whose write the database cannot take answers serverUnavailable (RFC 8620 3.6.2), not serverFail")
    func methodUnavailable() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        _ = try await harness.send(from: a, to: [b.address], subject: "Keep me", text: "Unread.")
        let id = try #require(try await harness.ids(b, in: "inbox").first)
        try await harness.database.write { try $0.execute("PRAGMA query_only = ON") }
        let answer = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["keywords/$seen": true]]])
        #expect(answer.name == "error", "\(answer.arguments)")
        #expect(answer.arguments["type"] as? String == "serverUnavailable", "\(answer.arguments)")
    }
}
