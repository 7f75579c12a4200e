import AuthCrypto
import Foundation
import Logging
import MailDelivery
import MailStore
import MailboxAccounts
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `/api/operator/messages` end to end: mail sent over SMTP (smtplib) into the catch-all and an inbox, then searched,
/// waited for and reset with the operator token (SQLite and PostgreSQL).
@Suite("Operator message API", .timeLimit(.minutes(1)))
struct OperatorAPITests {
    static let token = "operator-token-0123456789abcdef0123456789"
    static let auth = [("Authorization", "Bearer \(token)")]

    static func mail(subject: String, to: String, body: String = "hello") -> String {
        "From: App <app@example.com>\r\nTo: \(to)\r\nSubject: \(subject)\r\n\r\n\(body)\r\n"
    }

    static func send(_ server: TestServer, to: [String], subject: String, body: String = "hello") async throws {
        let port = try CatchAllTests.smtpPort(server)
        let refused = try await SMTPDeliveryTests.send(
            port: port, from: "app@example.com", to: to, message: mail(subject: subject, to: to[0], body: body))
        #expect(refused == "{}", "\(refused)")
    }

    static func start(_ backend: StorageBackend) async throws -> TestServer {
        try await TestServer.start(backend) {
            $0.recipients.acceptAny = true
            $0.mailbox.operatorToken = token
        }
    }

    static func subjects(_ response: TestResponse) throws -> [String] {
        let messages = try #require(try response.json()["messages"] as? [[String: Any]])
        return messages.compactMap { $0["subject"] as? String }
    }

    @Test("without POSTERN_OPERATOR_TOKEN the routes are 404", arguments: StorageBackend.allCases)
    func offWithoutToken(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        #expect(try await client.request("GET", "/api/operator/messages", headers: Self.auth).status == 404)
        #expect(try await client.request("GET", "/api/operator/messages/wait", headers: Self.auth).status == 404)
        #expect(try await client.request("DELETE", "/api/operator/messages", headers: Self.auth).status == 404)
    }

    @Test(
        "a missing or wrong bearer is 401 {\"error\":\"unauthorized\"} on every route, and nothing is deleted",
        arguments: StorageBackend.allCases)
    func unauthorized(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        try await Self.send(server, to: ["x@example.org"], subject: "kept")
        let client = try server.client()
        let wrong = [("Authorization", "Bearer " + Self.token.dropLast() + "X")]
        for headers in [[], wrong, [("Authorization", "Bearer " + Self.token + "X")]] {
            for (method, path) in [
                ("GET", "/api/operator/messages"), ("GET", "/api/operator/messages/wait?timeout=0"),
                ("DELETE", "/api/operator/messages"),
            ] {
                let response = try await client.request(method, path, headers: headers)
                #expect(response.status == 401, "\(method) \(path)")
                #expect(response.text == #"{"error":"unauthorized"}"#)
            }
        }
        #expect(try Self.subjects(try await client.request("GET", "/api/operator/messages", headers: Self.auth)) == ["kept"])
    }

    @Test(
        "search: newest first across every address; to, from, subject and text filter, case-insensitively",
        arguments: StorageBackend.allCases)
    func search(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        try await CatchAllTests.addAgent("alice", to: server)
        try await Self.send(server, to: ["alice+signup@agents.localhost"], subject: "Welcome Alice", body: "code 111")
        try await Self.send(server, to: ["bob@example.org"], subject: "Welcome Bob", body: "code 222")
        try await Self.send(server, to: ["carol@example.net"], subject: "Receipt 100%", body: "paid")
        let client = try server.client()
        func subjects(_ query: String) async throws -> [String] {
            try Self.subjects(try await client.request("GET", "/api/operator/messages" + query, headers: Self.auth))
        }
        #expect(try await subjects("") == ["Receipt 100%", "Welcome Bob", "Welcome Alice"])
        #expect(try await subjects("?to=ALICE%2Bsignup") == ["Welcome Alice"])
        #expect(try await subjects("?to=example.org") == ["Welcome Bob"])
        #expect(try await subjects("?subject=welcome") == ["Welcome Bob", "Welcome Alice"])
        #expect(try await subjects("?subject=welcome&text=222") == ["Welcome Bob"])
        #expect(try await subjects("?from=APP%40example.com&to=carol") == ["Receipt 100%"])
        #expect(try await subjects("?subject=0%25") == ["Receipt 100%"])
        #expect(try await subjects("?subject=_") == [])
        let listed = try #require(
            try await client.request("GET", "/api/operator/messages?to=bob", headers: Self.auth).json()["messages"]
                as? [[String: Any]])
        #expect(listed.first?["address"] as? String == RecipientPolicy.catchAllAddress)
        #expect(listed.first?["envelope_to"] as? [String] == ["bob@example.org"])
        #expect(listed.first?["sender"] as? String == "app@example.com")
        let alice = try #require(
            try await client.request("GET", "/api/operator/messages?to=alice", headers: Self.auth).json()["messages"]
                as? [[String: Any]])
        #expect(alice.first?["address"] as? String == "alice@agents.localhost")
        #expect(alice.first?["envelope_to"] as? [String] == ["alice+signup@agents.localhost"])
    }

    @Test("wait: the oldest match at once, 204 after its timeout without one", arguments: StorageBackend.allCases)
    func waitOldestOr204(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        try await Self.send(server, to: ["a@example.org"], subject: "first code")
        try await Self.send(server, to: ["a@example.org"], subject: "second code")
        let client = try server.client()
        let found = try await client.request(
            "GET", "/api/operator/messages/wait?to=a%40example.org&subject=code&timeout=5", headers: Self.auth)
        #expect(found.status == 200)
        #expect(try found.json()["subject"] as? String == "first code")
        let none = try await client.request(
            "GET", "/api/operator/messages/wait?subject=nothing&timeout=1", headers: Self.auth)
        #expect(none.status == 204)
        let tooLong = try await client.request("GET", "/api/operator/messages/wait?timeout=121", headers: Self.auth)
        #expect(tooLong.status == 400)
    }

    @Test(
        "one catch-all copy for three recipients: envelope_to lists each; the wait's to= finds it by any of them",
        arguments: StorageBackend.allCases)
    func envelopeRecipientsAreAList(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        let recipients = ["a@example.org", "b@example.net", "c@example.com"]
        try await Self.send(server, to: recipients, subject: "to three")
        let client = try server.client()
        for recipient in recipients {
            let found = try await client.request(
                "GET", "/api/operator/messages/wait?to=\(recipient)&timeout=5", headers: Self.auth)
            #expect(found.status == 200, "\(recipient)")
            let message = try found.json()
            #expect(message["envelope_to"] as? [String] == recipients)
            #expect(message["address"] as? String == RecipientPolicy.catchAllAddress)
        }
        let listed = try #require(
            try await client.request("GET", "/api/operator/messages", headers: Self.auth).json()["messages"]
                as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["envelope_to"] as? [String] == recipients)
    }

    @Test(
        "reset=accounts removes the accounts made since the start (Mail.td's, agents'), so the same address is created again",
        arguments: StorageBackend.allCases)
    func resetAccounts(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        func create(_ address: String) async throws -> Int { try await Self.createAccount(address, client) }
        #expect(try await create("suite@mail.localhost") == 201)
        let kept = try await client.request("DELETE", "/api/operator/messages", headers: Self.auth)
        #expect(kept.status == 200)
        #expect(try kept.json()["accounts_deleted"] == nil)
        #expect(try await create("suite@mail.localhost") == 409)
        // Two agents: one from before the server started (created_at 1), one from after (created far ahead).
        try await CatchAllTests.addAgent("older", to: server)
        try await server.runtime.database.write { connection in
            _ = try connection.run(
                "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES (?, ?, ?, 4000000000)",
                [.text("newer"), .text("newer"), .blob(SHA256.hash("newer"))])
        }
        let reset = try await client.request("DELETE", "/api/operator/messages?reset=accounts", headers: Self.auth)
        #expect(reset.status == 200)
        #expect(try reset.json()["accounts_deleted"] as? Int == 2)
        #expect(try await create("suite@mail.localhost") == 201)
        let agents = try await server.runtime.database.read { connection in
            try connection.query("SELECT username FROM agent_accounts ORDER BY username").compactMap { $0.text("username") }
        }
        #expect(agents == ["older"])
        let unknown = try await client.request("DELETE", "/api/operator/messages?reset=owners", headers: Self.auth)
        #expect(unknown.status == 400)
        #expect(try unknown.json()["error"] as? String == "invalid_request")
        #expect(try unknown.json()["parameter"] as? String == "reset")
    }

    /// Creates the Mail.td account `address` through `POST /api/accounts` (proof of work solved); its status.
    static func createAccount(_ address: String, _ client: TestHTTPClient) async throws -> Int {
        let challenge = try await client.request("GET", "/api/challenge").json()
        let id = try #require(challenge["id"] as? String)
        let nonce = ProofOfWork.solve(
            salt: try #require(challenge["salt"] as? String), difficulty: challenge["difficulty"] as? Int ?? 0)
        let body = #"{"address":"\#(address)","password":"secret1","pow":{"id":"\#(id)","nonce":"\#(nonce)"}}"#
        return try await client.request(
            "POST", "/api/accounts", headers: [("Content-Type", "application/json")], body: Array(body.utf8)
        ).status
    }

    @Test(
        "reset=everything removes every account of any age and every Pro user, so the same address and Pro email are made again; the owners stay",
        arguments: StorageBackend.allCases)
    func resetEverything(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let configuration = server.runtime.configuration
        let logger = Logger(label: "test")
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        func makePro() async throws {
            _ = try await Operations.createProUser(
                configuration: configuration, email: "pro@example.com", password: "pro-password-1", maxAccounts: 1,
                logger: logger)
        }
        try await makePro()
        #expect(try await Self.createAccount("suite@mail.localhost", client) == 201)
        // An account made "before the start" (created_at 1), which reset=accounts keeps, and an agent likewise.
        try await server.runtime.database.write { connection in
            _ = try connection.run("UPDATE mailbox_accounts SET created_at = 1")
        }
        try await CatchAllTests.addAgent("older", to: server)
        try await Self.send(server, to: ["older@agents.localhost"], subject: "one")
        let accounts = try await client.request("DELETE", "/api/operator/messages?reset=accounts", headers: Self.auth)
        #expect(try accounts.json()["accounts_deleted"] as? Int == 0)
        #expect(try await Self.createAccount("suite@mail.localhost", client) == 409)

        try await Self.send(server, to: ["older@agents.localhost"], subject: "two")
        let reset = try await client.request("DELETE", "/api/operator/messages?reset=everything", headers: Self.auth)
        #expect(reset.status == 200)
        let answer = try reset.json()
        #expect(answer["deleted"] as? Int == 1)
        #expect(answer["accounts_deleted"] as? Int == 2)
        #expect(answer["pro_users_deleted"] as? Int == 1)
        #expect(try await Self.createAccount("suite@mail.localhost", client) == 201)
        try await makePro()
        let left = try await server.runtime.database.read { connection in
            (
                owners: try connection.query("SELECT email FROM owners").compactMap { $0.text("email") },
                agents: try connection.query("SELECT COUNT(*) AS n FROM agent_accounts").first?.int("n"),
                pro: try connection.query("SELECT COUNT(*) AS n FROM mailbox_pro_users").first?.int("n")
            )
        }
        #expect(left.owners == ["ada@example.com"])
        #expect(left.agents == 0)
        #expect(left.pro == 1)
    }

    @Test("wait: a parked request wakes when matching mail arrives", arguments: StorageBackend.allCases)
    func waitWakes(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let changes = server.runtime.mailChanges
        let waiting = Task {
            try await client.request(
                "GET", "/api/operator/messages/wait?to=late%40example.org&timeout=20", headers: Self.auth)
        }
        while changes.anyChange.waiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Self.send(server, to: ["other@example.org"], subject: "not this one")
        try await Self.send(server, to: ["late@example.org"], subject: "arrived")
        let response = try await waiting.value
        #expect(response.status == 200)
        #expect(try response.json()["subject"] as? String == "arrived")
    }

    @Test(
        "reset deletes every message of every address, and each address's JMAP state moves",
        arguments: StorageBackend.allCases)
    func reset(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        try await CatchAllTests.addAgent("alice", to: server)
        try await Self.send(server, to: ["alice@agents.localhost", "x@example.org"], subject: "one")
        try await Self.send(server, to: ["alice@agents.localhost"], subject: "two")
        let store = MailStore(database: server.runtime.database)
        let aliceBefore = try #require(try await store.changes(address: "alice@agents.localhost", since: 0)?.state)
        let catchAllBefore = try #require(
            try await store.changes(address: RecipientPolicy.catchAllAddress, since: 0)?.state)
        let client = try server.client()
        let reset = try await client.request("DELETE", "/api/operator/messages", headers: Self.auth)
        #expect(reset.status == 200)
        #expect(try reset.json()["deleted"] as? Int == 3)
        #expect(try Self.subjects(try await client.request("GET", "/api/operator/messages", headers: Self.auth)).isEmpty)
        let alice = try #require(try await store.changes(address: "alice@agents.localhost", since: aliceBefore))
        #expect(alice.state > aliceBefore)
        #expect(alice.log.filter { $0.kind == .destroyed }.count == 2)
        let catchAll = try #require(try await store.changes(address: RecipientPolicy.catchAllAddress, since: catchAllBefore))
        #expect(catchAll.state > catchAllBefore)
    }

    @Test(
        "a Pro user's sandbox wait: 204 after its timeout, then the captured message once it arrives",
        arguments: StorageBackend.allCases)
    func sandboxWait(_ backend: StorageBackend) async throws {
        let sandbox = try await SMTPSandboxTests.ProSandbox.start(backend)
        let (server, port, client, auth, token) = (sandbox.server, sandbox.port, sandbox.client, sandbox.auth, sandbox.token)
        defer { Task { await server.stop() } }

        #expect(try await client.request("GET", "/api/user/sandbox/messages/wait?timeout=1", headers: auth).status == 204)
        #expect(try await client.request("GET", "/api/user/sandbox/messages/wait?timeout=31", headers: auth).status == 400)
        #expect(try await client.request("GET", "/api/user/sandbox/messages/wait?timeout=0").status == 401)
        let changes = server.runtime.mailChanges
        let waiting = Task {
            try await client.request("GET", "/api/user/sandbox/messages/wait?timeout=30", headers: auth)
        }
        while changes.waiting(for: try #require(try await Self.sandboxAddress(server))) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let submitted = try await SMTPSandboxTests.submit(
            port: port, password: token, recipients: ["someone@example.org"],
            message: Self.mail(subject: "captured", to: "someone@example.org"))
        #expect(submitted == "{}")
        let response = try await waiting.value
        #expect(response.status == 200)
        #expect(try response.json()["subject"] as? String == "captured")
    }

    static func sandboxAddress(_ server: TestServer) async throws -> String? {
        try await server.runtime.database.read { connection in
            try connection.query("SELECT address FROM mailbox_sandboxes", []).first?.text("address")
        }
    }
}
