import HTTP1
import JSON
import PosternTestSupport
import ServerKit
import Storage
import Synchronization
import Testing
import WebSocket

@testable import MailboxAccounts
@testable import MailboxRoutes
import MailTD
@testable import OperatorAPI

/// The operator's events socket through a database outage: a failover is waited out, not a closed socket.
@Suite("Operator events through a database outage", .timeLimit(.minutes(1)))
struct OperatorEventsOutageTests {
    /// The events socket, opened with the operator's token.
    static func open(_ harness: MailboxHarness) async throws -> WebSocketTestPeer {
        try await .upgrade(
            harness.router, OperatorController.eventsPath, headers: [("Authorization", "Bearer operator-secret")])
    }

    /// The subject of the next `new` event.
    static func nextSubject(_ peer: WebSocketTestPeer) async throws -> String? {
        guard case .text(let text)? = try await peer.nextMessage() else { return nil }
        return try JSONValue.parse(Array(text.utf8))["message"]?["subject"]?.stringValue
    }

    @Test(
        "a wake-up while the database is away (a listener reconnected) is looked at again once it is back; the socket stays open",
        arguments: StorageBackend.allCases)
    func outage(_ backend: StorageBackend) async throws {
        let outage = InjectedOutage()
        let harness = try MailboxHarness(
            backend, configure: { $0.operatorToken = "operator-secret" }, beforeStatement: outage.beforeStatement)
        _ = try await harness.createAccount("events@mail.localhost")
        let counts = try #require(harness.storage)
        let opened = counts.counts.statements
        let peer = try await Self.open(harness)
        // The socket has read where it starts from (the newest message, then the count): a delivery from now on is new
        // to it, however slowly its task ran (on a busy machine "before" once arrived before it had looked).
        try await waitUntil("the socket looked at the store") { counts.counts.statements >= opened + 2 }
        try await MailboxWebhookTests.deliver(harness, to: "events@mail.localhost", subject: "before")
        #expect(try await Self.nextSubject(peer) == "before")
        outage.begin()
        harness.service.mail.changes.announceEverywhere()  // what a reconnected listener does
        try await waitUntil("the socket's reads found the database away") { outage.failed > 0 }
        #expect(!peer.isClosed, "the socket outlives the outage")
        outage.end()
        try await MailboxWebhookTests.deliver(harness, to: "events@mail.localhost", subject: "after")
        #expect(try await Self.nextSubject(peer) == "after")
        #expect(!peer.isClosed)
    }
}
