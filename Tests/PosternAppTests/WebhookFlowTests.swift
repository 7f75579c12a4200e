import Foundation
import Logging
import MailboxAccounts
import PosternTestSupport
import Webhooks
import Testing

@testable import PosternApp
@testable import PosternOperations

/// Webhooks in the running server: a JMAP submission from an agent inbox to a Pro user's account reaches the user's
/// webhook through the server's own dispatcher and outbound fetcher (the SMTP path is the client test's).
@Suite("Webhook delivery end to end", .timeLimit(.minutes(1)))
struct WebhookFlowTests {
    @Test(
        "a JMAP submission to a Pro account is POSTed to the owner's webhook, signed, with the message's event id",
        arguments: StorageBackend.allCases)
    func jmapSubmission(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/hook", status: 204, body: "")
        let server = harness.server
        _ = try await Operations.createProUser(
            configuration: server.runtime.configuration, email: "hooks@example.com", password: "pro-password",
            maxAccounts: 5, logger: Logger(label: "test"))
        let client = harness.client
        let login = try await client.json(
            "POST", "/api/user/login", ["email": "hooks@example.com", "password": "pro-password"])
        let token = try #require(try login.json()["token"] as? String)
        let bearer = [("Authorization", "Bearer \(token)")]
        let account = try await client.json(
            "POST", "/api/accounts", ["address": "box@mail.localhost", "password": "hunter22"], headers: bearer)
        #expect(account.status == 201)
        let hook = try await client.json("POST", "/api/user/webhooks", ["url": origin.url("/hook")], headers: bearer)
        #expect(hook.status == 201)
        let secret = try #require(try hook.json()["secret"] as? String)

        let agent = try await harness.signUp("sender")
        let sent = try await harness.send(from: agent, to: ["box@mail.localhost"], subject: "Over JMAP", text: "Hi.")
        #expect(sent.map(\.name) == ["Email/set", "EmailSubmission/set"])
        // Waits for the POST (bounded: a missing delivery fails instead of hanging).
        let deadline = ContinuousClock.now + .seconds(20)
        while origin.receivedRequests.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let request = try #require(origin.receivedRequests.first)
        let lines = request.split(separator: "\r\n").map(String.init)
        func header(_ name: String) -> String? {
            lines.first { $0.lowercased().hasPrefix(name.lowercased() + ": ") }.map { String($0.dropFirst(name.count + 2)) }
        }
        #expect(lines.first == "POST /hook HTTP/1.1")
        let eventID = try #require(header("X-Webhook-ID"))
        #expect(eventID.hasPrefix("evt_") && eventID.count == 40)
        #expect(header("Content-Type") == "application/json")
        #expect(header("X-Webhook-Signature")?.hasPrefix("sha256=") == true)
        if let body = request.components(separatedBy: "\r\n\r\n").dropFirst().first, !body.isEmpty,
            let timestamp = header("X-Webhook-Timestamp").flatMap(Int64.init)
        {
            #expect(body.contains("\"subject\":\"Over JMAP\""))
            #expect(
                header("X-Webhook-Signature")
                    == WebhookSignature.header(secret: secret, timestamp: timestamp, body: Array(body.utf8)))
        }
        let messages = try await client.request("GET", "/api/user/accounts/box@mail.localhost/messages", headers: bearer)
        let listed = try #require(try messages.json()["messages"] as? [[String: Any]])
        #expect(listed.map { "evt_" + ($0["id"] as? String ?? "") } == [eventID])
    }
}
