import Foundation
import PosternTestSupport
import PostgresClient
import Storage
import Testing

@testable import PosternApp

/// `GET /api/accounts/{id}` on PostgreSQL answered from the event loops' own non-blocking connections
/// (`POSTERN_POSTGRES_LOOP_READS`), seen from the database: the loops' sessions (`application_name` `postern-loop`)
/// run the account read, and a session killed under them is replaced with no request answered wrong.
@Suite("PostgreSQL reads from the event loop, end to end", .onPostgres, .serialized)
struct PostgresLoopReadTests {
    /// The loops' sessions whose last statement was the account read, seen from a connection of the test's own.
    private func loopSessions(_ watcher: PostgresConnection, reading: Bool) throws -> Int64 {
        let filter = reading ? " AND query LIKE '%FROM mailbox_accounts WHERE id = $1%'" : ""
        return try watcher.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'postern-loop'"
                + " AND datname = current_database()" + filter, []
        ).first?.int("n") ?? -1
    }

    /// A server on a fresh database of the shared test server, its loop reads on or off, creation needing no proof.
    private func start(loopReads: Bool) async throws -> (TestServer, url: String) {
        let url = try PostgresTestServer.shared().freshDatabase()
        let server = try await TestServer.start(.postgres) {
            $0.storage.databaseURL = url
            $0.storage.postgresLoopReads = loopReads
            $0.mailbox.powRequired = false
        }
        return (server, url)
    }

    @Test("the account read runs on the loops' connections, answers as before (200, 403, 401), and survives a killed session")
    func accountRead() async throws {
        let (server, url) = try await start(loopReads: true)
        defer { Task { await server.stop() } }
        let client = try server.client()
        var accounts: [(id: String, token: String)] = []
        for name in ["loop", "other"] {
            let created = try await client.json(
                "POST", "/api/accounts", ["address": "\(name)@mail.localhost", "password": "hunter22"])
            #expect(created.status == 201)
            let body = try created.json()
            accounts.append((try #require(body["id"] as? String), try #require(body["token"] as? String)))
        }
        let (id, token) = accounts[0]
        let bearer = [("Authorization", "Bearer \(token)")]
        func read(_ target: String) async throws -> TestResponse {
            try await client.request("GET", target, headers: bearer)
        }
        let watcher = try PostgresConnection(url: url)

        // The first reads open the loops' connections (and go through the pool meanwhile): every one answers.
        try await waitUntil("a loop's connection ran the account read") {
            let answer = try await read("/api/accounts/\(id)")
            #expect(answer.status == 200)
            #expect(try answer.json()["address"] as? String == "loop@mail.localhost")
            return try loopSessions(watcher, reading: true) > 0
        }
        for target in ["/api/accounts/\(id)", "/api/accounts/loop@mail.localhost"] {
            let answer = try await read(target)
            #expect(answer.status == 200, "\(target)")
            #expect(try answer.json()["id"] as? String == id)
        }
        let someoneElse = try await read("/api/accounts/\(accounts[1].id)")
        #expect(someoneElse.status == 403)

        // A session ended under the loop (a failover, pg_terminate_backend): no read hangs or fails for it.
        _ = try watcher.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'postern-loop'"
                + " AND datname = current_database()", [])
        for _ in 0..<10 {
            #expect(try await read("/api/accounts/\(id)").status == 200)
        }
        try await waitUntil("the loops' connections were opened again and read") {
            #expect(try await read("/api/accounts/\(id)").status == 200)
            return try loopSessions(watcher, reading: true) > 0
        }

        // A token the account no longer honours is refused on the loop as in the pool (401).
        #expect(try await client.request("DELETE", "/api/accounts/\(id)", headers: bearer).status == 204)
        let gone = try await read("/api/accounts/\(id)")
        #expect(gone.status == 401)
    }

    @Test("POSTERN_POSTGRES_LOOP_READS off: no loop connection is opened and the read answers through the pool")
    func off() async throws {
        let (server, url) = try await start(loopReads: false)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let created = try await client.json(
            "POST", "/api/accounts", ["address": "pool@mail.localhost", "password": "hunter22"])
        let body = try created.json()
        let id = try #require(body["id"] as? String)
        let token = try #require(body["token"] as? String)
        for _ in 0..<5 {
            let answer = try await client.request("GET", "/api/accounts/\(id)", headers: [("Authorization", "Bearer \(token)")])
            #expect(answer.status == 200)
        }
        #expect(try loopSessions(PostgresConnection(url: url), reading: false) == 0)
    }
}
