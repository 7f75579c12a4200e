import Foundation
import PosternTestSupport
import PostgresClient
import Storage
import Testing

@testable import PosternApp

/// `GET /api/accounts/{id}` on PostgreSQL answered from the event loops' own non-blocking connections
/// (`POSTERN_POSTGRES_LOOP_READS`), seen from the database: the loops' sessions (`application_name` `postern-loop`)
/// run the account read, a session killed under them is replaced with no request answered wrong, and a write in doubt
/// (past the commit timeout, as when a failover leaves the old primary up) ends their sessions as the pool's.
@Suite("PostgreSQL reads from the event loop, end to end", .onPostgres, .serialized)
struct PostgresLoopReadTests {
    /// The loops' sessions (their backends' pids), with `reading` those whose last statement was the account read,
    /// seen from a connection of the test's own.
    private func loopSessions(_ watcher: PostgresConnection, reading: Bool) throws -> Set<Int64> {
        let filter = reading ? " AND query LIKE '%FROM mailbox_accounts WHERE id = $1%'" : ""
        return Set(
            try watcher.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'postern-loop'"
                    + " AND datname = current_database()" + filter, []
            ).compactMap { $0.int("pid") })
    }

    /// A server on a fresh database of the shared test server, its loop reads on or off, creation needing no proof.
    private func start(loopReads: Bool, commitTimeoutSeconds: Int = 10) async throws -> (TestServer, url: String) {
        let url = try PostgresTestServer.shared().freshDatabase()
        let server = try await TestServer.start(.postgres) {
            $0.storage.databaseURL = url
            $0.storage.postgresLoopReads = loopReads
            $0.storage.commitTimeoutSeconds = commitTimeoutSeconds
            $0.mailbox.powRequired = false
        }
        return (server, url)
    }

    /// A new account `name`@mail.localhost: its id and the header its token goes in.
    private func signUp(_ client: TestHTTPClient, _ name: String) async throws -> (id: String, bearer: [(String, String)]) {
        let created = try await client.json(
            "POST", "/api/accounts", ["address": "\(name)@mail.localhost", "password": "hunter22"])
        #expect(created.status == 201)
        let body = try created.json()
        let token = try #require(body["token"] as? String)
        return (try #require(body["id"] as? String), [("Authorization", "Bearer \(token)")])
    }

    @Test("the account read runs on the loops' connections, answers as before (200, 403, 401), and survives a killed session")
    func accountRead() async throws {
        let (server, url) = try await start(loopReads: true)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let (id, bearer) = try await signUp(client, "loop")
        let other = try await signUp(client, "other")
        func read(_ target: String) async throws -> TestResponse {
            try await client.request("GET", target, headers: bearer)
        }
        let watcher = try PostgresConnection(url: url)

        // The first reads open the loops' connections (and go through the pool meanwhile): every one answers.
        try await waitUntil("a loop's connection ran the account read") {
            let answer = try await read("/api/accounts/\(id)")
            #expect(answer.status == 200)
            #expect(try answer.json()["address"] as? String == "loop@mail.localhost")
            return try !loopSessions(watcher, reading: true).isEmpty
        }
        for target in ["/api/accounts/\(id)", "/api/accounts/loop@mail.localhost"] {
            let answer = try await read(target)
            #expect(answer.status == 200, "\(target)")
            #expect(try answer.json()["id"] as? String == id)
        }
        let someoneElse = try await read("/api/accounts/\(other.id)")
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
            return try !loopSessions(watcher, reading: true).isEmpty
        }

        // A token the account no longer honours is refused on the loop as in the pool (401).
        #expect(try await client.request("DELETE", "/api/accounts/\(id)", headers: bearer).status == 204)
        let gone = try await read("/api/accounts/\(id)")
        #expect(gone.status == 401)
    }

    @Test("a write past the commit timeout ends the loops' sessions at once, with no read to make it, as the pool's; reads go to new ones")
    func writeInDoubt() async throws {
        let (server, url) = try await start(loopReads: true, commitTimeoutSeconds: 1)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let (id, bearer) = try await signUp(client, "doubt")
        let watcher = try PostgresConnection(url: url)
        try await waitUntil("a loop's connection ran the account read") {
            #expect(try await client.request("GET", "/api/accounts/\(id)", headers: bearer).status == 200)
            return try !loopSessions(watcher, reading: true).isEmpty
        }
        let before = try loopSessions(watcher, reading: false)

        // A sign-up's INSERT waits behind a lock the test holds past the commit timeout, as a commit waits for a
        // standby a failover took away: its outcome is in doubt (503), and the pool raises its doubt of the primary.
        let locker = try PostgresConnection(url: url)
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE mailbox_accounts IN EXCLUSIVE MODE")  // reads go on; inserts wait
        let stuck = try await client.json(
            "POST", "/api/accounts", ["address": "stuck@mail.localhost", "password": "hunter22"])
        try locker.execute("ROLLBACK")
        #expect(stuck.status == 503)

        // The loops drop the sessions they had at once, though no read came (before, they stayed until one broke).
        try await waitUntil("the loops' sessions from before the write in doubt ended") {
            try loopSessions(watcher, reading: false).isDisjoint(with: before)
        }
        // The reads after it answer, and go to sessions opened since.
        try await waitUntil("new loop sessions ran the account read") {
            #expect(try await client.request("GET", "/api/accounts/\(id)", headers: bearer).status == 200)
            return try !loopSessions(watcher, reading: true).isEmpty
        }
        #expect(try loopSessions(watcher, reading: false).isDisjoint(with: before))
    }

    @Test("POSTERN_POSTGRES_LOOP_READS off: no loop connection is opened and the read answers through the pool")
    func off() async throws {
        let (server, url) = try await start(loopReads: false)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let (id, bearer) = try await signUp(client, "pool")
        for _ in 0..<5 {
            let answer = try await client.request("GET", "/api/accounts/\(id)", headers: bearer)
            #expect(answer.status == 200)
        }
        #expect(try loopSessions(PostgresConnection(url: url), reading: false).isEmpty)
    }
}
