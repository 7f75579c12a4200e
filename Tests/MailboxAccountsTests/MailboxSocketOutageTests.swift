import JSON
import MailStore
import PosternTestSupport
import Storage
import Testing
import WebSocket

@testable import MailCX
@testable import MailboxAccounts

/// mail.cx's `/api/ws` through a database failover (issue 72): the socket's re-check of its token and its own reads
/// after a change-stream element wait an outage out; the socket is not closed and the mail comes once the database is
/// back.
@Suite("mail.cx sockets outlast a database failover", .timeLimit(.minutes(2)))
struct MailboxSocketOutageTests {
    @Test(
        "a database away when a delivery wakes the socket delays its new_email until it is back, and closes nothing",
        arguments: StorageBackend.allCases)
    func outageAfterWake(_ backend: StorageBackend) async throws {
        // Away from the socket's re-check of its token on: the first read of an account by its id once armed.
        let outage = InjectedOutage()
        let harness = try MailboxHarness(backend, counting: true, beforeStatement: outage.beforeStatement)
        let address = "socket-outage@mail.localhost"
        let account = try await harness.createAccount(address)
        let peer = WebSocketTestPeer { inbound, outbound in
            await MailCXSocketSession(harness.socketController, outbound: outbound, client: "127.0.0.1").run(inbound)
        }
        peer.receive(#"{"type":"auth","token":"\#(account.token)"}"#)
        #expect(try await peer.nextMessage() == .text(#"{"type":"auth_ok"}"#))
        try await waitUntil("the socket's stream parked") { harness.service.mail.changes.waiting(for: address) == 1 }
        outage.arm { $0.contains("FROM mailbox_accounts WHERE id = ?") }
        let id = try await MailboxMessageEndpointTests.deliver(harness, to: address, subject: "during a failover")
        // The old socket closed at the first failure (and failed once more releasing its place); this one tries again.
        try await waitUntil("the socket's reads found the database away, again and again", limit: .seconds(60)) {
            outage.failed >= 3 || peer.isClosed
        }
        #expect(!peer.isClosed, "the socket outlives the outage (closed: \(String(describing: peer.closed)))")
        outage.end()
        let message = try #require(try await peer.nextMessage())
        let text: String? = if case .text(let text) = message { text } else { nil }
        let event = try JSONValue.parse(Array(try #require(text).utf8))
        #expect(event["type"]?.stringValue == "new_email")
        #expect(event["id"]?.stringValue == id)
        #expect(event["subject"]?.stringValue == "during a failover")
        #expect(!peer.isClosed)
        peer.clientCloses()
        await peer.handlerEnded()
    }
}
