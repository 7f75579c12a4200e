import AgentAuth
import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// `GET /.well-known/jmap`: who may open it, and what the session resource says.
@Suite("JMAP session resource")
struct JMAPSessionTests {
    private func expectUnauthorized(_ response: TestResponse, _ comment: Comment) throws {
        #expect(response.status == 401, comment)
        #expect(response.header("Content-Type") == "application/problem+json", comment)
        #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, comment)
        #expect(try response.json()["status"] as? Int == 401, comment)
    }

    @Test(
        "the session is 401 without a token, with a session JWT (wrong purpose) and with garbage",
        arguments: StorageBackend.allCases)
    func sessionRefusesWithoutCapability(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("sessionagent")

        try expectUnauthorized(try await harness.session(token: nil), "no token")
        try expectUnauthorized(try await harness.session(token: agent.sessionToken), "session JWT")
        try expectUnauthorized(try await harness.session(token: "garbage"), "garbage")
        try expectUnauthorized(try await harness.session(token: "a.b.c"), "three garbage parts")
        // The API is closed the same way.
        try expectUnauthorized(
            try await harness.post(["using": [JMAPHarness.core], "methodCalls": []], token: nil), "API, no token")
        try expectUnauthorized(
            try await harness.post(["using": [JMAPHarness.core], "methodCalls": []], token: agent.sessionToken),
            "API, session JWT")
    }

    @Test(
        "the capability token opens the session: absolute URLs on the base URL, primary account = the account",
        arguments: StorageBackend.allCases)
    func sessionWithCapability(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("sessionagent")

        let response = try await harness.session(token: agent.capability)
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        let session = try response.json()
        let base = harness.baseURL
        #expect(base.hasPrefix("http://") && !base.hasSuffix("/"))
        for key in ["apiUrl", "uploadUrl", "downloadUrl"] {
            let url = try #require(session[key] as? String, "\(key)")
            #expect(url.hasPrefix(base + "/"), "\(key) = \(url)")
            #expect(URL(string: url.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: ""))?
                .scheme != nil, "\(key) is absolute")
        }
        #expect(session["apiUrl"] as? String == base + "/jmap/api")
        let download = try #require(session["downloadUrl"] as? String)
        for variable in ["{accountId}", "{blobId}", "{name}", "{type}"] {
            #expect(download.contains(variable), "downloadUrl has \(variable)")
        }
        #expect((session["uploadUrl"] as? String)?.contains("{accountId}") == true)

        let accounts = try #require(session["accounts"] as? [String: Any])
        #expect(accounts.count == 1)
        let accountID = try #require(accounts.keys.first)
        let primary = try #require(session["primaryAccounts"] as? [String: Any])
        #expect(primary[JMAPHarness.mail] as? String == accountID)
        #expect(accountID == agent.accountID)
        #expect(session["username"] as? String == agent.address)
        #expect(agent.address == "sessionagent@\(harness.agentDomain)")

        let capabilities = try #require(session["capabilities"] as? [String: Any])
        for capability in JMAPHarness.allCapabilities {
            #expect(capabilities[capability] != nil, "\(capability)")
        }
        let core = try #require(capabilities[JMAPHarness.core] as? [String: Any])
        #expect(core["maxCallsInRequest"] as? Int == 32)
        #expect(session["state"] is String)
    }

    @Test("a revoked agent's capability token answers 401", arguments: StorageBackend.allCases)
    func revokedAgentIsRefused(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("revokedagent")
        #expect(try await harness.session(token: agent.capability).status == 200)

        let revoked = try await AgentAccountStore(database: harness.server.runtime.database)
            .revoke(username: agent.username, now: Int64(Date().timeIntervalSince1970))
        #expect(revoked)

        try expectUnauthorized(try await harness.session(token: agent.capability), "session after revoke")
        try expectUnauthorized(
            try await harness.post(
                ["using": [JMAPHarness.core, JMAPHarness.mail],
                 "methodCalls": [["Mailbox/get", ["accountId": agent.accountID], "c0"]]],
                token: agent.capability),
            "API after revoke")
    }
}
