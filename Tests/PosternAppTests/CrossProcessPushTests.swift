import Foundation
import JSON
import Logging
import MailStore
import PosternTestSupport
import Synchronization
import Testing
import WebSocket

@testable import PosternApp
@testable import PosternOperations

/// Every push door hears of mail another process stored (`postern mail deliver`, which writes the data directory's
/// database with a store of its own and announces nothing in the server's process): JMAP's event source and its
/// WebSocket, the web inbox's live list, mail.cx's `/api/ws`, the operator's events and `/messages/wait` (issue 67).
/// On SQLite the change stream looks again each second; on PostgreSQL the delivery's NOTIFY wakes it.
@Suite("A delivery from another process reaches every push door", .timeLimit(.minutes(3)))
struct CrossProcessPushTests {
    static let operatorToken = "cross-process-operator-token-of-enough-length"
    /// How long each door may take (the doors should take about a second; this is a harness bound, not a claim).
    static let patience: Duration = .seconds(10)

    @Test(
        "postern mail deliver to an agent and a Mail.td account: each of the six doors pushes it",
        arguments: StorageBackend.allCases)
    func deliveredElsewhere(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend) {
            $0.mailbox.powRequired = false
            $0.mailbox.operatorToken = Self.operatorToken
        }
        let server = harness.server
        defer { Task { await harness.stop() } }
        let changes = server.runtime.mailChanges
        let store = MailStore(database: server.runtime.database)
        let agent = try await harness.signUp("crossproc")
        let account = try await server.client().createMailboxAccount("crossproc@mail.localhost")
        let mailbox = try #require(account["address"] as? String)
        let mailboxToken = try #require(account["token"] as? String)
        let accountID = try #require(account["id"] as? String)
        let agentState = try await store.state(address: agent.address)
        let mailboxState = try await store.state(address: mailbox)

        // JMAP's event source, from the state now (a `/get` state as Last-Event-ID): only a change is an event.
        let eventSource = try server.client()
        eventSource.sendRaw(
            Array(
                ("GET /jmap/eventsource?types=Email&closeafter=no&ping=0 HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: Bearer \(agent.capability)\r\nLast-Event-ID: \(agentState)\r\n\r\n").utf8))
        #expect(try await eventSource.readResponse().status == 200)

        // JMAP over WebSocket, push enabled from the state now.
        let jmapSocket = try await Self.upgrade(server, "/jmap/ws", bearer: agent.capability, subprotocol: "jmap")
        Self.sendText(
            jmapSocket, #"{"@type":"WebSocketPushEnable","dataTypes":["Email"],"pushState":"\#(agentState)"}"#)

        // The web inbox's live list, from the state its page was rendered at.
        let cookie = try await WebLinkSession.open(
            try await Operations.webInboxLink(
                configuration: server.runtime.configuration, address: mailbox, logger: Logger(label: "cross")),
            server)
        let live = try server.client()
        live.sendRaw(
            Array(
                ("GET /inbox/m/\(mailbox.replacingOccurrences(of: "@", with: "%40"))/events?state=\(mailboxState) "
                    + "HTTP/1.1\r\nHost: localhost\r\nCookie: \(cookie)\r\n\r\n").utf8))
        #expect(try await live.readResponse().status == 200)

        // mail.cx's /api/ws, authenticated.
        let mailCX = try await Self.upgrade(server, "/api/ws", bearer: nil, subprotocol: nil)
        Self.sendText(mailCX, #"{"type":"auth","token":"\#(mailboxToken)"}"#)
        #expect(try await Self.nextText(mailCX).contains("auth_ok"))

        // /messages/wait, parked.
        let waitClient = try server.client()
        let wait = Task {
            try await waitClient.request(
                "GET", "/api/accounts/\(accountID)/messages/wait?timeout=30",
                headers: [("Authorization", "Bearer \(mailboxToken)")])
        }

        // Every address door parked on its address before the delivery, so that each must be told of it.
        try await Self.waitUntil("the agent's two JMAP streams parked") { changes.waiting(for: agent.address) >= 2 }
        try await Self.waitUntil("the account's three doors parked") { changes.waiting(for: mailbox) >= 3 }
        // The operator's events: parked once another waiter of every address is.
        let before = changes.anyChange.waiting
        let operatorEvents = try await Self.upgrade(
            server, "/api/operator/events", bearer: Self.operatorToken, subprotocol: nil)
        try await Self.waitUntil("the operator's events parked") { changes.anyChange.waiting > before }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postern-cross-\(UUID()).eml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            "From: a@example.com\r\nTo: \(mailbox)\r\nSubject: From elsewhere\r\n\r\nHello.\r\n".utf8
        ).write(to: file)
        _ = try await Operations.deliverMail(
            configuration: server.runtime.configuration, recipients: [agent.address, mailbox], file: file.path,
            logger: Logger(label: "cross-deliver"))

        let eventSourceSaw = try await Self.within { try await eventSource.readUntil("event: state\n") }
        #expect(eventSourceSaw?.contains(#""Email":""#) == true, "JMAP event source: \(eventSourceSaw ?? "nothing")")
        let stateChange = try await Self.within { try await Self.nextText(jmapSocket) }
        #expect(stateChange?.contains(#""@type":"StateChange""#) == true, "JMAP WebSocket: \(stateChange ?? "nothing")")
        let liveSaw = try await Self.within { try await live.readUntil("event: change\n") }
        #expect(liveSaw?.contains(#""arrived":true"#) == true, "live list: \(liveSaw ?? "nothing")")
        let newEmail = try await Self.within { try await Self.nextText(mailCX) }
        #expect(newEmail?.contains("From elsewhere") == true, "/api/ws: \(newEmail ?? "nothing")")
        let operatorSaw = try await Self.within { try await Self.nextText(operatorEvents) }
        #expect(operatorSaw?.contains("From elsewhere") == true, "operator events: \(operatorSaw ?? "nothing")")
        let waited = try await Self.within { try await wait.value }
        #expect(waited?.status == 200 && waited?.text.contains("From elsewhere") == true, "/messages/wait")
    }

    /// `body`'s value, or nil when ``patience`` passes first. The reads block a Dispatch thread and cannot be
    /// cancelled: one still blocked then is left to end when the server stops.
    static func within<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        let taken = Taken()
        let outcome: Result<T, any Error>? = await withCheckedContinuation { continuation in
            let finish: @Sendable (Result<T, any Error>?) -> Void = { outcome in
                if !taken.flag.exchange(true, ordering: .relaxed) { continuation.resume(returning: outcome) }
            }
            Task {
                do { finish(.success(try await body())) } catch { finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: patience)
                finish(nil)
            }
        }
        return try outcome?.get()
    }

    /// Whether ``within(_:)`` has its outcome.
    final class Taken: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// Polls `condition` every 10 ms for up to a minute.
    static func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        for _ in 0..<6000 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out: \(what)")
    }

    /// A WebSocket on `path` after its `101`.
    static func upgrade(
        _ server: TestServer, _ path: String, bearer: String?, subprotocol: String?
    ) async throws -> TestHTTPClient {
        var headers = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
        if let subprotocol { headers.append(("Sec-WebSocket-Protocol", subprotocol)) }
        if let bearer { headers.append(("Authorization", "Bearer " + bearer)) }
        let client = try server.client()
        let answer = try await client.request("GET", path, headers: headers)
        #expect(answer.status == 101, "\(path): \(answer.status) \(answer.text)")
        return client
    }

    static func sendText(_ client: TestHTTPClient, _ text: String) {
        client.sendRaw(
            WebSocketFrameEncoder.encodeMasked(
                WebSocketFrame(opcode: .text, payload: Array(text.utf8)), mask: (1, 2, 3, 4)))
    }

    /// The next text message the server sends (pings and other control frames skipped).
    static func nextText(_ client: TestHTTPClient) async throws -> String {
        while true {
            let frame = try await client.readWebSocketFrame()
            if frame.opcode == .text { return String(decoding: frame.payload, as: UTF8.self) }
            if frame.opcode == .close { throw TestClientError.closed }
        }
    }
}
