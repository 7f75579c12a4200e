import HTTP1
import JSON
import PosternTestSupport
import JWT
import Testing

@testable import RemoteHashAuth

@Suite("Remote hash storage failures")
struct RemoteHashStorageFailureTests {
    // SQLite's `query_only` makes the one writer refuse writes; PostgreSQL's outage is shown by PostgresClient's tests.
    @Test(
        "a read-only database answers 503 with Retry-After and reports nothing",)
    func unavailable() async throws {
        let h = try Harness(.sqlite)
        let url = try h.serveHash(of: "pw")
        try h.database.writeSync { try $0.execute("PRAGMA query_only = ON") }
        let fields: [(String, JSONValue)] = [
            ("email", "a@example.com"), ("password_hash_url", .string(url)), ("password", "pw"),
        ]
        let response = await h.send(
            .POST, "/register", headers: [("Accept", "application/json"), ("Content-Type", "application/json")],
            body: JSONValue.object(fields).serialize())
        #expect(response.status == .serviceUnavailable)
        #expect(try JSONValue.parse(response.body) == .object([("error", .string(RemoteHashMessage.unavailable))]))
        #expect(response.headers["Retry-After"] == "1")
        #expect(h.unexpected.all.isEmpty)
    }

    @Test(
        "any other storage failure is a bare 500 without internals, reported with the request id",
        arguments: StorageBackend.allCases)
    func internalError(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        try h.database.writeSync { try $0.execute("DROP TABLE remote_users") }
        let (status, json) = await h.api(.POST, "/login", ["email": "a@example.com", "password": "pw"])
        #expect(status == 500)
        #expect(json == .object([("error", .string(RemoteHashMessage.internalError))]))
        #expect(h.unexpected.all == ["test"])
    }
}
