import JSON
import PosternTestSupport
import Testing

@testable import MailpitAPI

/// Mailpit's events socket through a database outage (issue 82 item 4): a failover is waited out by the one stream's
/// looks, and the socket reports the next delivery; it no longer closes with 1011.
@Suite("Mailpit events through a database outage", .timeLimit(.minutes(1)))
struct MailpitEventsOutageTests {
    /// The Subject of the next `new` event, past the others (`stats`); nil when the socket ended.
    static func nextNew(_ peer: WebSocketTestPeer) async throws -> String? {
        while case .text(let text)? = try await peer.nextMessage() {
            let event = try JSONValue.parse(Array(text.utf8))
            if event["Type"]?.stringValue == "new" { return event["Data"]?["Subject"]?.stringValue }
        }
        return nil
    }

    static func mail(_ subject: String) -> String {
        "From: a@example.com\r\nTo: ops@mail.localhost\r\nSubject: \(subject)\r\n\r\nbody\r\n"
    }

    @Test("a look that finds the database away is made again once it is back; the socket stays open and tells the next delivery", arguments: StorageBackend.allCases)
    func outage(_ backend: StorageBackend) async throws {
        let outage = InjectedOutage()
        let harness = try MailpitHarness(backend, outage: outage)
        let peer = try await WebSocketTestPeer.upgrade(
            harness.client.router, "/mailpit/api/events",
            headers: [("Authorization", "Bearer " + MailpitHarness.operatorToken)])
        // The socket's first look has read what it starts from: a delivery from now on is new to it.
        try await waitUntil("the socket parked on the stream") { harness.store.changes.anyChange.waiting > 0 }
        try await harness.deliver(Self.mail("before"), to: "ops@mail.localhost")
        #expect(try await Self.nextNew(peer) == "before")
        outage.begin()
        harness.store.changes.announceEverywhere()  // what a reconnected listener does
        try await waitUntil("the socket's look found the database away") { outage.failed > 0 }
        #expect(!peer.isClosed, "the socket outlives the outage")
        outage.end()
        try await harness.deliver(Self.mail("after"), to: "ops@mail.localhost")
        #expect(try await Self.nextNew(peer) == "after")
        #expect(!peer.isClosed)
    }
}
