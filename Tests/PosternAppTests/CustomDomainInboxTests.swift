import AgentAuth
import Directory
import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// Atomic custom domains end to end: an inbox an owner made on their verified domain is an ordinary agent inbox at its
/// real address, for API-key login, SMTP and JMAP (session, reading, and the `From` rule), while the owner holds the
/// domain verified.
@Suite("Custom-domain inboxes through the real server")
struct CustomDomainInboxTests {
    @Test(
        "login by API key, mail over SMTP to the real address, JMAP reads it and refuses another From",
        arguments: StorageBackend.allCases)
    func customDomainInbox(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let runtime = harness.server.runtime
        try await runtime.database.write { connection in
            try connection.run("INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'o@x.example', 'x', 0)")
            try connection.run(
                """
                INSERT INTO custom_domain_claims (id, owner_id, domain, verify_token, verified_at, created_at)
                VALUES ('d1', 'o1', 'example.com', 'postern-verify-1', 1, 0)
                """)
        }
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: runtime.database), domain: harness.agentDomain, clock: { 1 })
        let (inbox, key) = try await inboxes.createInbox(username: "support", domain: "example.com", ownerID: "o1")

        let agent = try await harness.logIn(apiKey: key, name: "support")
        #expect(agent.address == "support@example.com" && agent.accountID == inbox.accountID)
        let session = try await harness.session(token: agent.capability).json()
        let accounts = try #require(session["accounts"] as? [String: Any])
        let account = try #require(accounts.values.first as? [String: Any])
        #expect(account["name"] as? String == "support@example.com")

        let smtpPort = try #require(runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let refusals = try await SMTPDeliveryTests.send(
            port: smtpPort, from: "someone@elsewhere.example", to: ["support@example.com"],
            message: "Subject: to the custom domain\r\n\r\nhello\r\n")
        #expect(refusals == "{}")
        #expect(try await harness.ids(agent, in: "inbox").count == 1)

        let forged = try await harness.send(
            from: agent, to: ["someone@elsewhere.example"], subject: "s", text: "t",
            fromAddress: "support@" + harness.agentDomain)
        #expect(forged.last?.object("notCreated")?["s1"] != nil)
        let honest = try await harness.send(from: agent, to: ["someone@elsewhere.example"], subject: "s", text: "t")
        #expect(honest.last?.object("created")?["s1"] != nil)

        // The owner's claim goes (an owner deleted with it, or a delete from before this release): the inbox is no
        // longer local, so SMTP refuses mail for it and its credentials open nothing to send from.
        _ = try await runtime.database.write { connection in
            try connection.run("DELETE FROM custom_domain_claims WHERE id = 'd1'")
        }
        let refused = try await SMTPDeliveryTests.send(
            port: smtpPort, from: "someone@elsewhere.example", to: ["support@example.com"],
            message: "Subject: after\r\n\r\nhello\r\n")
        #expect(refused.contains("support@example.com"))
        #expect(try await harness.session(token: agent.capability).status == 401)
        let after = try await harness.post(
            [
                "using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail", "urn:ietf:params:jmap:submission"],
                "methodCalls": [["Mailbox/get", ["accountId": agent.accountID], "m"]],
            ], token: agent.capability)
        #expect(after.status == 401)

        // A Pro user proves the domain: the address is the Pro user's catch-all now, never the old inbox's again.
        _ = try await runtime.database.write { connection in
            try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at)
                VALUES ('p1', 'p@x.example', 'x', 5, 0)
                """)
            return try connection.run(
                """
                INSERT INTO custom_domain_claims (id, pro_user_id, domain, verify_token, verified_at, created_at)
                VALUES ('00000000-0000-4000-8000-000000000001', 'p1', 'example.com', 'postern-verify-2', 2, 0)
                """)
        }
        #expect(try await harness.session(token: agent.capability).status == 401)
    }
}
