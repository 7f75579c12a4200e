import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// A server on PostgreSQL while its database goes away and comes back (issue 14's failure behaviour).
@Suite("PostgreSQL outage, end to end", .onPostgres, .serialized)
struct PostgresOutageTests {
    private func post(_ client: TestHTTPClient, _ path: String, _ json: String) async throws -> TestResponse {
        try await client.request(
            "POST", path, headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: Array(json.utf8))
    }

    @Test(
        "PostgreSQL down: /readyz fails, stateless endpoints answer, each surface answers 503 without internals; back: all recovers"
    )
    func outage() async throws {
        let postgres = try PostgresTestServer.dedicated()
        let url = try postgres.freshDatabase()
        let server = try await TestServer.start(.postgres) { $0.storage.databaseURL = url }
        defer { Task { await server.stop() } }
        let client = try server.client()
        #expect(try await client.request("GET", "/readyz").status == 200)

        try postgres.stop()
        let ready = try await client.request("GET", "/readyz")
        #expect(ready.status == 503)
        #expect(ready.text == #"{"status":"unavailable"}"#)
        #expect(try await client.request("GET", "/healthz").status == 200)
        #expect(try await client.request("POST", "/api/v1/challenge").status == 200)
        #expect(try await client.request("GET", "/.well-known/jwks.json").status == 200)
        let refused = [
            try await post(client, "/api/token", #"{"address":"nobody@mail.localhost","password":"pw-123456"}"#),
            try await post(client, "/login", #"{"email":"nobody@example.com","password":"pw"}"#),
        ]
        for response in refused {
            #expect(response.status == 503, "\(response.text)")
            #expect(try response.json()["error"] != nil)
            for secret in ["SQLSTATE", "postgres", "libpq", "127.0.0.1"] {
                #expect(!response.text.contains(secret), "\(response.text)")
            }
        }

        #expect(refused[1].header("Retry-After") == "1")  // the remote-hash surface's 503 says when to come back

        try postgres.startAgain()
        #expect(try await client.request("GET", "/readyz").status == 200)
        let token = try await post(client, "/api/token", #"{"address":"nobody@mail.localhost","password":"pw-123456"}"#)
        #expect(token.status == 401)
    }
}
