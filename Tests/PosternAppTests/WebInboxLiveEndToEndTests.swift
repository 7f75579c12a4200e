import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// The web inbox's live list in a real server: mail that arrives over SMTP while a list is open is an event on its
/// stream, and the stream ends when the server shuts down.
@Suite("Web inbox live list, end to end", .timeLimit(.minutes(2)))
struct WebInboxLiveEndToEndTests {
    @Test(
        "mail delivered over SMTP while the list is open is a change event; the open stream is counted; shutdown ends it",
        arguments: StorageBackend.allCases)
    func deliveredThenShutDown(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.mailbox.powRequired = false }
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        let smtpPort = try #require(server.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let client = try server.client()
        let created = try await client.request(
            "POST", "/api/accounts", headers: [("Content-Type", "application/json")],
            body: Array(#"{"address":"live@mail.localhost","password":"secret1"}"#.utf8))
        #expect(created.status == 201)

        // A session, through a one-time link.
        let link = try await Operations.webInboxLink(
            configuration: server.runtime.configuration, address: "live@mail.localhost", logger: Logger(label: "live"))
        let linkPath = String(link[try #require(link.range(of: "/inbox/link/")).lowerBound...])
        let page = try await client.request("GET", linkPath)
        let preCookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map { String($0) })
        let csrfStart = try #require(page.text.range(of: "name=\"csrf_token\" value=\"")).upperBound
        let form = "csrf_token=\(page.text[csrfStart...].prefix { $0 != "\"" })&token=\(linkPath.dropFirst(12))"
        let used = try await client.request(
            "POST", "/inbox/link",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", preCookie)],
            body: Array(form.utf8))
        let session = try #require(
            used.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("postern_inbox=") }?.1)
        let cookie = String(session.split(separator: ";")[0])

        let list = try await client.request("GET", "/inbox/m/live%40mail.localhost", headers: [("Cookie", cookie)])
        #expect(list.status == 200)
        let stateStart = try #require(list.text.range(of: "data-state=\"")).upperBound
        let state = String(list.text[stateStart...].prefix { $0 != "\"" })

        let stream = try server.client()
        stream.sendRaw(
            Array(
                ("GET /inbox/m/live%40mail.localhost/events?state=\(state) HTTP/1.1\r\nHost: localhost\r\n"
                    + "Cookie: \(cookie)\r\n\r\n").utf8))
        let head = try await stream.readResponse()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        // The open stream is counted on /metrics (a gauge of the process: at least this one).
        let metrics = try await client.request("GET", "/metrics").text
        let gauge = metrics.split(separator: "\n").first { $0.hasPrefix("postern_web_inbox_event_streams ") }
        let streams: Double? = gauge?.split(separator: " ").last.flatMap { Double($0) }
        #expect((streams ?? 0) >= 1, "\(gauge ?? "no gauge")")
        let refused = try await SMTPDeliveryTests.send(
            port: smtpPort, from: "friend@example.com", to: ["live@mail.localhost"],
            message: "From: friend@example.com\r\nTo: live@mail.localhost\r\nSubject: Live\r\n\r\nHello.\r\n")
        #expect(refused.trimmingCharacters(in: .whitespacesAndNewlines) == "{}")
        let events = try await stream.readUntil("\n\nevent: change\n")
        #expect(events.contains("\"arrived\":true}"))

        // The server drains: the open stream ends (the connection closes) rather than holding the shutdown.
        async let closed = stream.readUntilClosed()
        await server.shutdown()
        #expect(try await closed)
    }
}
