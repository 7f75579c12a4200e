import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// What Postern found in a message (issue 85) on the operator's API: `codes` and `extracted_links` on the list, the
/// detail and the wait, `links` as it was, and the wait's `has_code` and `link_kind` (SQLite and PostgreSQL).
@Suite("Operator API: codes, link kinds and the wait on them", .timeLimit(.minutes(1)))
struct OperatorCodeTests {
    static let auth = OperatorAPITests.auth

    static func send(_ server: TestServer, _ message: String, to recipient: String) async throws {
        let port = try CatchAllTests.smtpPort(server)
        let refused = try await SMTPDeliveryTests.send(
            port: port, from: "no-reply@acme.example", to: [recipient], message: message)
        #expect(refused == "{}", "\(refused)")
    }

    @Test(
        "an HTML-only verification mail shows its code and link kinds on the list and the detail; links stay URLs",
        arguments: StorageBackend.allCases)
    func codesOnTheMessages(_ backend: StorageBackend) async throws {
        let server = try await OperatorAPITests.start(backend)
        defer { Task { await server.stop() } }
        try await Self.send(server, VerificationMail.newsletter(to: "bot@example.org"), to: "bot@example.org")
        try await Self.send(server, VerificationMail.raw(to: "bot@example.org"), to: "bot@example.org")
        let client = try server.client()
        func listed(_ query: String) async throws -> [[String: Any]] {
            let answer = try await client.request("GET", "/api/operator/messages" + query, headers: Self.auth)
            #expect(answer.status == 200, "\(query)")
            return try #require(try answer.json()["messages"] as? [[String: Any]])
        }
        let all = try await listed("")
        #expect(all.count == 2)
        let verification = try #require(all.first)
        #expect(verification["codes"] as? [[String: String]] == [["value": VerificationMail.code, "source": "html"]])
        let links = try #require(verification["extracted_links"] as? [[String: String]])
        #expect(links.first == ["url": VerificationMail.verifyURL, "text": "Verify email", "kind": "verify"])
        #expect(links.map { $0["kind"] }.contains("unsubscribe"))
        #expect(all.last?["codes"] as? [Any] != nil && (all.last?["codes"] as? [Any])?.isEmpty == true)

        #expect(try await listed("?has_code=true").map { $0["id"] as? String } == [verification["id"] as? String])
        #expect(try await listed("?has_code=false").count == 1)
        #expect(try await listed("?link_kind=verify").count == 1)
        #expect(try await listed("?link_kind=sign-in").isEmpty)
        for bad in ["has_code=yes", "link_kind=signIn"] {
            let refused = try await client.request("GET", "/api/operator/messages?" + bad, headers: Self.auth)
            #expect(refused.status == 400, "\(bad)")
            #expect(try refused.json()["parameter"] as? String == String(bad.prefix { $0 != "=" }))
        }

        let id = try #require(verification["id"] as? String)
        let detail = try await client.request("GET", "/api/operator/messages/\(id)", headers: Self.auth).json()
        #expect(detail["codes"] as? [[String: String]] == [["value": VerificationMail.code, "source": "html"]])
        #expect((detail["extracted_links"] as? [[String: String]])?.first?["kind"] == "verify")
        let urls = try #require(detail["links"] as? [String])
        #expect(urls.contains(VerificationMail.verifyURL))

        // A message stored before codes were found at delivery: null, not an empty list.
        _ = try await server.runtime.database.write { try $0.run("DELETE FROM mail_extractions", []) }
        let unread = try await client.request("GET", "/api/operator/messages/\(id)", headers: Self.auth).json()
        #expect(unread["codes"] is NSNull && unread["extracted_links"] is NSNull)
    }

    @Test(
        "the wait with has_code=true passes over mail without a code and wakes on the delivery of one",
        arguments: StorageBackend.allCases)
    func waitWakesOnACode(_ backend: StorageBackend) async throws {
        let server = try await OperatorAPITests.start(backend)
        defer { Task { await server.stop() } }
        try await Self.send(server, VerificationMail.newsletter(to: "wait@example.org"), to: "wait@example.org")
        let client = try server.client()
        let waiter = try server.client()
        let waiting = Task {
            try await waiter.request(
                "GET", "/api/operator/messages/wait?to=wait%40example.org&has_code=true&link_kind=verify&timeout=20",
                headers: Self.auth)
        }
        let none = try await client.request(
            "GET", "/api/operator/messages/wait?to=wait%40example.org&has_code=true&timeout=0", headers: Self.auth)
        #expect(none.status == 204)
        let sent = ContinuousClock.now
        try await Self.send(server, VerificationMail.raw(to: "wait@example.org"), to: "wait@example.org")
        let found = try await waiting.value
        #expect(found.status == 200)
        #expect(ContinuousClock.now - sent < .seconds(5))
        let message = try found.json()
        #expect(message["subject"] as? String == "Confirm your Acme account")
        #expect((message["codes"] as? [[String: String]])?.first?["value"] == VerificationMail.code)
    }
}
