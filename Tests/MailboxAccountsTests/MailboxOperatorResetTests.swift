import HTTP1
import MailSandbox
import PosternTestSupport
import Storage
import Testing

@testable import MailboxAccounts

/// The operator's reset reaches what other targets keep beside the messages, through the port the surface is given.
@Suite("Mailbox operator reset and the sandbox's records")
struct MailboxOperatorResetTests {
    static func sandboxRecords(_ harness: MailboxHarness) async throws -> Int64 {
        try await harness.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mailbox_sandbox_messages").first?.int("n") ?? 0
        }
    }

    @Test(
        "DELETE /api/operator/messages deletes the captured messages and the sandbox's records of them",
        arguments: StorageBackend.allCases)
    func resetForgetsSandboxRecords(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.operatorToken = "operator-secret" }
        let token = try await harness.proToken(email: "reset@example.com")
        let owner = await harness.send(.GET, "/api/user/me", bearer: token).string("id")
        let raw = Array("From: app@example.net\r\nTo: someone@example.org\r\nSubject: Hi\r\n\r\nHi.\r\n".utf8)
        _ = try await harness.sandbox.captureInSandbox(
            owner: owner, mailFrom: "app@example.net", recipients: ["someone@example.org"], clientIP: "127.0.0.1",
            raw: raw, authResults: nil)
        #expect(try await Self.sandboxRecords(harness) == 1)
        let reset = await harness.send(.DELETE, "/api/operator/messages", bearer: "operator-secret")
        #expect(reset.status == 200 && reset["deleted"] == .int(1))
        #expect(try await Self.sandboxRecords(harness) == 0)
        let listed = await harness.send(.GET, "/api/user/sandbox/messages", bearer: token)
        #expect(listed["messages"] == .array([]))
    }

    @Test(
        "DELETE /api/operator/messages/{id} deletes that captured message and the sandbox's record of it alone",
        arguments: StorageBackend.allCases)
    func deleteOneForgetsItsRecord(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.operatorToken = "operator-secret" }
        let token = try await harness.proToken(email: "one@example.com")
        let owner = await harness.send(.GET, "/api/user/me", bearer: token).string("id")
        var ids: [String] = []
        for subject in ["kept", "deleted"] {
            let raw = Array("From: app@example.net\r\nTo: x@example.org\r\nSubject: \(subject)\r\n\r\nHi.\r\n".utf8)
            ids.append(
                try await harness.sandbox.captureInSandbox(
                    owner: owner, mailFrom: "app@example.net", recipients: ["x@example.org"], clientIP: "127.0.0.1",
                    raw: raw, authResults: nil))
        }
        let deleted = await harness.send(.DELETE, "/api/operator/messages/\(ids[1])", bearer: "operator-secret")
        #expect(deleted.status == 204)
        #expect(try await Self.sandboxRecords(harness) == 1)
        let again = await harness.send(.DELETE, "/api/operator/messages/\(ids[1])", bearer: "operator-secret")
        #expect(again.status == 404 && again["error"] == .string("not_found"))
        let listed = await harness.send(.GET, "/api/user/sandbox/messages", bearer: token)
        #expect(listed["messages"]?.arrayValue?.count == 1)
    }
}
