import Foundation
import Logging
import MailboxAccounts
import PosternTestSupport
import Testing
@testable import PosternApp
@testable import PosternOperations

/// Mail.td clients against a real server: the documented requests over sockets, every token killed by a
/// reset or deletion, Pro users and API tokens, and rate limits switched on.
@Suite("Mailbox accounts end to end")
struct MailboxFlowTests {
    private func solvedChallenge(_ client: TestHTTPClient) async throws -> [String: Any] {
        let challenge = try await client.request("GET", "/api/challenge").json()
        let id = try #require(challenge["id"] as? String)
        let salt = try #require(challenge["salt"] as? String)
        let difficulty = try #require(challenge["difficulty"] as? Int)
        #expect(id.count == 32 && salt.count == 64)
        return ["id": id, "nonce": ProofOfWork.solve(salt: salt, difficulty: difficulty)]
    }

    @Test("create, sign in, read, reset kills old tokens, delete kills the rest", arguments: StorageBackend.allCases)
    func accountLifecycle(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()

        let domains = try await client.request("GET", "/api/domains")
        #expect(domains.status == 200)
        let domain = try #require((try domains.json()["domains"] as? [[String: Any]])?.first)
        #expect(domain["domain"] as? String == "mail.localhost")
        #expect(domain["default"] as? Bool == true)

        let pow = try await solvedChallenge(client)
        let created = try await client.json(
            "POST", "/api/accounts", ["address": "alice@mail.localhost", "password": "hunter22", "pow": pow])
        #expect(created.status == 201)
        let account = try created.json()
        let id = try #require(account["id"] as? String)
        #expect(UUID(uuidString: id) != nil)
        #expect(account["address"] as? String == "alice@mail.localhost")
        let firstToken = try #require(account["token"] as? String)

        let replay = try await client.json(
            "POST", "/api/accounts", ["address": "bob@mail.localhost", "password": "hunter22", "pow": pow])
        #expect(replay.status == 403)
        #expect(try replay.json()["error"] as? String == "challenge not found or expired")

        let wrong = try await client.json("POST", "/api/token", ["address": "alice@mail.localhost", "password": "nope!!"])
        #expect(wrong.status == 401)
        let unknown = try await client.json("POST", "/api/token", ["address": "zed@mail.localhost", "password": "nope!!"])
        #expect(unknown.status == 401)
        #expect(wrong.text == unknown.text)
        #expect(try wrong.json()["error"] as? String == "invalid_credentials")

        let signIn = try await client.json("POST", "/api/token", ["address": "alice@mail.localhost", "password": "hunter22"])
        #expect(signIn.status == 200)
        let secondToken = try #require(try signIn.json()["token"] as? String)

        let info = try await client.request("GET", "/api/accounts/\(id)", headers: [("Authorization", "Bearer \(firstToken)")])
        #expect(info.status == 200)
        let infoBody = try info.json()
        #expect(infoBody["role"] as? String == "user")
        #expect(infoBody["quota"] is Int && infoBody["used"] is Int)
        #expect((infoBody["created_at"] as? String)?.hasSuffix("Z") == true)

        let reset = try await client.json(
            "PUT", "/api/accounts/\(id)/reset-password", ["password": "correct-horse"],
            headers: [("Authorization", "Bearer \(secondToken)")])
        #expect(reset.status == 200)
        #expect(try reset.json()["message"] as? String == "password_reset")
        for token in [firstToken, secondToken] {
            let stale = try await client.request("GET", "/api/accounts/\(id)", headers: [("Authorization", "Bearer \(token)")])
            #expect(stale.status == 401)
            #expect(try stale.json()["error"] as? String == "invalid_or_expired_token")
        }

        let fresh = try #require(try await client.json(
            "POST", "/api/token", ["address": "alice@mail.localhost", "password": "correct-horse"]).json()["token"] as? String)
        let deleted = try await client.request("DELETE", "/api/accounts/\(id)", headers: [("Authorization", "Bearer \(fresh)")])
        #expect(deleted.status == 204)
        let afterDelete = try await client.request("GET", "/api/accounts/\(id)", headers: [("Authorization", "Bearer \(fresh)")])
        #expect(afterDelete.status == 401)
    }

    @Test(
        "a Pro user made by the operator logs in, creates accounts without proof, and uses tm_pro_ tokens",
        arguments: StorageBackend.allCases)
    func proUser(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.mailbox.proDomains = ["pro.localhost"] }
        defer { Task { await server.stop() } }
        _ = try await Operations.createProUser(
            configuration: server.runtime.configuration, email: "ops@example.com", password: "pro-password",
            maxAccounts: 1, logger: Logger(label: "test"))
        let client = try server.client()

        let login = try await client.json("POST", "/api/user/login", ["email": "ops@example.com", "password": "pro-password"])
        #expect(login.status == 200)
        let loginBody = try login.json()
        #expect(loginBody["plan"] as? String == "pro")
        #expect(loginBody["status"] as? String == "active")
        let proJWT = try #require(loginBody["token"] as? String)

        let madeToken = try await client.json(
            "POST", "/api/user/tokens", ["name": "ci"], headers: [("Authorization", "Bearer \(proJWT)")])
        #expect(madeToken.status == 201)
        let apiToken = try #require(try madeToken.json()["token"] as? String)
        #expect(apiToken.hasPrefix("tm_pro_"))
        let tokenID = try #require(try madeToken.json()["id"] as? String)

        let created = try await client.json(
            "POST", "/api/accounts", ["address": "box@pro.localhost", "password": "hunter22"],
            headers: [("Authorization", "Bearer \(apiToken)")])
        #expect(created.status == 201)
        let overLimit = try await client.json(
            "POST", "/api/accounts", ["address": "box2@mail.localhost", "password": "hunter22"],
            headers: [("Authorization", "Bearer \(apiToken)")])
        #expect(overLimit.status == 403)
        #expect(try overLimit.json()["error"] as? String == "account_limit_reached")

        let me = try await client.request("GET", "/api/user/me", headers: [("Authorization", "Bearer \(apiToken)")])
        #expect(me.status == 200)
        #expect(try me.json()["account_count"] as? Int == 1)
        let list = try await client.request("GET", "/api/user/accounts", headers: [("Authorization", "Bearer \(proJWT)")])
        #expect((try list.json()["accounts"] as? [Any])?.count == 1)

        let revoked = try await client.request(
            "DELETE", "/api/user/tokens/\(tokenID)", headers: [("Authorization", "Bearer \(proJWT)")])
        #expect(revoked.status == 204)
        let dead = try await client.request("GET", "/api/user/me", headers: [("Authorization", "Bearer \(apiToken)")])
        #expect(dead.status == 401)
    }

    @Test(
        "one of two instances (POSTERN_INSTANCES=2) enforces half of each limit, and says so in its headers",
        arguments: StorageBackend.allCases)
    func rateLimitShare(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.rateLimits.enabled = true
            $0.rateLimits.instances = 2
        }
        defer { Task { await server.stop() } }
        let client = try server.client()
        var responses: [TestResponse] = []
        for _ in 0..<20 { responses.append(try await client.request("GET", "/api/domains")) }
        #expect(responses.prefix(4).allSatisfy { $0.status == 200 })
        #expect(responses.contains { $0.status == 429 })
        #expect(responses.allSatisfy { $0.header("RateLimit-Limit") == "4" })
    }

    @Test(
        "with rate limits on, a burst past 8 req/s gets 429 with Retry-After and RateLimit headers",
        arguments: StorageBackend.allCases)
    func rateLimited(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.rateLimits.enabled = true }
        defer { Task { await server.stop() } }
        let client = try server.client()
        var statuses: [Int] = []
        var refusal: TestResponse?
        // Until the first refusal: the bucket holds 8 and refills 8 a second, so a slow machine (whose requests take
        // longer) only needs more of them, never fewer than 9.
        while refusal == nil, statuses.count < 400 {
            let response = try await client.request("GET", "/api/domains")
            statuses.append(response.status)
            if response.status == 429 { refusal = response }
        }
        #expect(statuses.prefix(8).allSatisfy { $0 == 200 })
        let refused = try #require(refusal)
        #expect(try refused.json()["error"] as? String == "rate_limit_exceeded")
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(refused.header("RateLimit-Limit") != nil)
        #expect(refused.header("RateLimit-Remaining") == "0")
        #expect(refused.header("RateLimit-Reset") != nil)
        // The health endpoint is outside the surfaces and never limited.
        #expect(try await client.request("GET", "/healthz").status == 200)
    }
}
