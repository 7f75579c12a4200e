import Fetch
import Foundation
import MailStore
import OutboundSocket
import PosternTestSupport
import Testing

@testable import MailpitAPI

/// The link check goes through the outbound fetcher: what its address policy refuses, what does not resolve and what
/// answers outside 2xx are errors in Mailpit's `LinkCheckResponse`. (A link that answers 2xx, through the real
/// fetcher, is Tests/Clients/test_mailpit_api.py's.)
@Suite("Mailpit API: link check through the outbound fetcher", .serialized)
struct MailpitLinkCheckTests {
    @Test("each of the message's links, in order, with the fetcher's status or refusal", arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let links = LinkTable(answers: [
            "https://shop.example/gone": .badStatus(404), "http://127.0.0.1:9/admin": .notAllowed(.loopback),
        ])
        let harness = try MailpitHarness(backend, links: links)
        let id = try await harness.deliver(
            """
            From: a@example.com\r
            To: b@mail.localhost\r
            Subject: Links\r
            \r
            Visit https://shop.example/gone, then http://127.0.0.1:9/admin and https://nowhere.example/x.\r

            """, to: "b@mail.localhost")
        let response = try await harness.call("GET", "/api/v1/message/\(id)/link-check")
        #expect(response.status == 200, "\(response.text)")
        let body = try response.json()
        #expect(body["Errors"] as? Int == 3)
        let checked = try #require(body["Links"] as? [[String: Any]])
        #expect(checked.map { $0["URL"] as? String ?? "" } == [
            "https://shop.example/gone", "http://127.0.0.1:9/admin", "https://nowhere.example/x",
        ])
        #expect(checked.map { $0["StatusCode"] as? Int ?? -1 } == [404, 0, 0])
        #expect(checked.map { $0["Status"] as? String ?? "" } == [
            "Not Found", "address not allowed (loopback)", "host did not resolve",
        ])
        #expect(try await harness.call("GET", "/api/v1/message/no-such/link-check").status == 404)
    }
}
