import Directory
import HTTP1
import JSON
import MailDelivery
import MailStore
import OutboundQueue
import PosternTestSupport
import ServerKit
import Storage
import Synchronization
import Testing

@testable import JMAP

@Suite("JMAP event source: query rules, events, and streams woken by the change stream", .timeLimit(.minutes(1)))
struct JMAPEventSourceTests {
    static let ada = "ada@agents.test"
    static let everything = "/jmap/eventsource?types=*&closeafter=state&ping=0"

    func deliver(_ harness: JMAPServiceHarness, _ subject: String) async throws -> String {
        try await JMAPChangesTests().deliver(harness, subject)
    }

    func state(_ harness: JMAPServiceHarness) async throws -> Int64 {
        try await harness.store.state(address: Self.ada)
    }

    /// The `(event, id, data)` of each event in `body`.
    static func events(_ body: [UInt8]) -> [(event: String, id: String?, data: JSONValue?)] {
        String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { block in
            var event = "message"
            var id: String?
            var data: JSONValue?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data = try? JSONValue.parse(Array(line.dropFirst(6).utf8)) }
            }
            return (event, id, data)
        }
    }

    // MARK: - The query, pure

    @Test("types: * is every pushable type, a list keeps the known names; closeafter and ping are required")
    func queryRules() throws {
        let range = 5...300
        func parse(_ types: String?, _ close: String?, _ ping: String?, _ last: String? = nil) throws
            -> EventSourceRequest
        {
            try EventSourceRequest(types: types, closeAfter: close, ping: ping, lastEventID: last, pingRange: range)
        }
        #expect(try parse("*", "no", "0").types == ["Email", "Mailbox", "Thread", "EmailDelivery"])
        #expect(try parse("EmailSubmission,Email", "no", "0").types == ["Email"], "without a ledger: not pushed")
        let submissions = try EventSourceRequest(
            types: "*", closeAfter: "no", ping: "0", lastEventID: nil, pingRange: range, submissions: true)
        #expect(submissions.types == ["Email", "Mailbox", "Thread", "EmailDelivery", "EmailSubmission"])
        #expect(submissions.watchesSubmissions)
        #expect(try parse("EmailDelivery, Email,Calendar", "state", "0").types == ["Email", "EmailDelivery"])
        #expect(try parse("Calendar", "no", "0").types == [])
        #expect(try parse("*", "state", "0").closeAfterState)
        #expect(!(try parse("*", "no", "0").closeAfterState))
        for (types, close, ping) in [
            (nil, "no", "0"), ("", "no", "0"), ("Email,,Thread", "no", "0"), ("*", nil, "0"), ("*", "yes", "0"),
            ("*", "no", nil), ("*", "no", ""), ("*", "no", "-1"), ("*", "no", "1.5"), ("*", "no", "9999999999"),
        ] as [(String?, String?, String?)] {
            #expect(throws: RequestError.self) { try parse(types, close, ping) }
        }
    }

    @Test("ping: 0 is none; a non-zero interval is clamped to the server's range (at most 30 s low, 300 s high)")
    func pingClamping() throws {
        func ping(_ text: String) throws -> Int {
            try EventSourceRequest(types: "*", closeAfter: "no", ping: text, lastEventID: nil, pingRange: 5...300).ping
        }
        #expect(try ping("0") == 0)
        #expect(try ping("1") == 5)
        #expect(try ping("5") == 5)
        #expect(try ping("60") == 60)
        #expect(try ping("300") == 300)
        #expect(try ping("301") == 300)
        #expect(try ping("86400") == 300)
    }

    @Test("Last-Event-ID: a mail state, or it and an EmailSubmission state joined by a dot; anything else is ignored")
    func lastEventID() throws {
        func last(_ text: String?) throws -> EventSourceState? {
            try EventSourceRequest(types: "*", closeAfter: "no", ping: "0", lastEventID: text, pingRange: 5...300)
                .lastEvent
        }
        #expect(try last("42") == EventSourceState(mail: 42, submission: nil))
        #expect(try last("42.7") == EventSourceState(mail: 42, submission: "7"))
        #expect(try last("42.7")?.id == "42.7")
        #expect(try last("42")?.id == "42")
        for ignored in [nil, "", "abc", "-3", String(repeating: "9", count: 30), "42.", ".7", "42.7.1", "42.x"] {
            #expect(try last(ignored) == nil, "\(ignored ?? "nil")")
        }
    }

    @Test("a state event is a StateChange of each type's state under the account, with its id; a ping, the interval")
    func eventBytes() {
        let event = EventSourceEvent.state(
            accountID: "a1", changed: [("Email", "7"), ("Thread", "7"), ("EmailSubmission", "3")], id: "7.3")
        #expect(
            String(decoding: event, as: UTF8.self)
                == "event: state\nid: 7.3\ndata: {\"@type\":\"StateChange\",\"changed\":{\"a1\":{\"Email\":\"7\",\"Thread\":\"7\",\"EmailSubmission\":\"3\"}}}\n\n")
        #expect(String(decoding: EventSourceEvent.ping(interval: 30), as: UTF8.self) == "event: ping\ndata: {\"interval\":30}\n\n")
    }

    // MARK: - Through the route

    @Test("the session names the event source's URL template", arguments: StorageBackend.allCases)
    func session(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let response = await harness.send(.GET, "/.well-known/jmap", bearer: "ada")
        let session = try JSONValue.parse(response.body)
        #expect(
            session["eventSourceUrl"]?.stringValue
                == "http://jmap.test/jmap/eventsource?types={types}&closeafter={closeafter}&ping={ping}")
    }

    @Test(
        "no bearer is 401, a bad parameter 400, both in the problem-details shape and before any stream opens",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let anonymous = await harness.openStream(Self.everything, bearer: nil).response()
        #expect(anonymous.status.code == 401)
        #expect(anonymous.headers["Content-Type"] == "application/problem+json")
        let stranger = await harness.openStream(Self.everything, bearer: "mallory").response()
        #expect(stranger.status.code == 401)
        let badPing = await harness.openStream("/jmap/eventsource?types=*&closeafter=state&ping=soon", bearer: "ada")
            .response()
        #expect(badPing.status.code == 400)
        #expect(String(decoding: badPing.body, as: UTF8.self).contains("ping"))
        let missing = await harness.openStream("/jmap/eventsource?types=*", bearer: "ada").response()
        #expect(missing.status.code == 400)
        #expect(harness.streamActivity.all.isEmpty)
    }

    @Test(
        "without Last-Event-ID the current state comes at once; closeafter=state then ends the response",
        arguments: StorageBackend.allCases)
    func currentStateAtOnce(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        _ = try await deliver(harness, "one")
        let now = try await state(harness)
        let response = await harness.openStream(Self.everything, bearer: "ada").response()
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"] == "text/event-stream")
        #expect(response.headers["Content-Length"] == nil)
        let events = Self.events(response.body)
        #expect(events.count == 1)
        #expect(events.first?.event == "state")
        #expect(try await events.first?.id == harness.pushState())
        let changed = events.first?.data?["changed"]?["acct-ada"]
        #expect(events.first?.data?["@type"] == "StateChange")
        for type in ["Email", "Mailbox", "Thread", "EmailDelivery"] {
            #expect(changed?[type]?.stringValue == String(now))
        }
        try await waitUntil("the stream closed") { harness.streamActivity.all.last == .closed }
        #expect(harness.streamActivity.all == [.opened, .pushed(isState: true), .closed])
    }

    @Test(
        "with Last-Event-ID at the current state, the stream parks on the change stream and an SMTP-like delivery wakes it",
        arguments: StorageBackend.allCases)
    func wokenByDelivery(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let before = try await state(harness)
        let writer = harness.openStream(Self.everything, bearer: "ada", lastEventID: String(before))
        try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
        #expect(writer.written.body.isEmpty)
        _ = try await deliver(harness, "wake")
        let response = await writer.response()
        let after = try await state(harness)
        let events = Self.events(response.body)
        #expect(events.map(\.event) == ["state"])
        #expect(try await events.first?.id == harness.pushState() && after > before)
        #expect(events.first?.data?["changed"]?["acct-ada"]?["EmailDelivery"]?.stringValue == String(after))
    }

    /// A database that goes away (``InjectedOutage``) once armed and the bearer was checked: the moment between the
    /// change stream's element and the event source's own reads of the states and the log.
    final class OutageAfterCheck: PrincipalAuthenticator, Sendable {
        let outage = InjectedOutage()
        private let armed = Mutex(false)
        func arm() { armed.withLock { $0 = true } }

        func principal(for credentials: Credentials) async throws -> Principal? {
            if armed.withLock({ armed in defer { armed = false }; return armed }) { outage.begin() }
            return credentials.bearerToken == "ada" ? JMAPServiceHarness.ada : nil
        }
    }

    @Test(
        "a database away just after the stream was woken (a failover) delays the event until it is back, and does not end the stream",
        arguments: StorageBackend.allCases)
    func outageAfterWake(_ backend: StorageBackend) async throws {
        let outage = OutageAfterCheck()
        let harness = try JMAPServiceHarness(backend, authenticator: outage) {
            CountingDatabase($0, beforeStatement: outage.outage.beforeStatement)
        }
        let before = try await state(harness)
        let writer = harness.openStream(Self.everything, bearer: "ada", lastEventID: String(before))
        try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
        outage.arm()
        _ = try await deliver(harness, "during a failover")
        try await waitUntil("the event source's read found the database away") { outage.outage.failed > 0 }
        #expect(!writer.hasEnded, "the stream outlives the outage")
        outage.outage.end()
        let events = Self.events(await writer.response().body)
        #expect(events.map(\.event) == ["state"])
        #expect(try await events.first?.id == harness.pushState())
    }

    @Test(
        "a flag change is no EmailDelivery: a stream subscribed to EmailDelivery alone waits for the next arrival",
        arguments: StorageBackend.allCases)
    func emailDeliveryOnlyOnArrival(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let id = try await deliver(harness, "first")
        let start = try await state(harness)
        let writer = harness.openStream(
            "/jmap/eventsource?types=EmailDelivery&closeafter=state&ping=0", bearer: "ada", lastEventID: String(start))
        try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
        _ = try await harness.api("ada", ##"[["Email/set",{"accountId":"acct-ada","update":{"\##(id)":{"keywords/$seen":true}}},"c"]]"##)
        // It looked at the flag change, found nothing to push and parked again.
        try await waitUntil("the stream parked again") {
            try await harness.store.state(address: Self.ada) > start && harness.store.changes.waiting(for: Self.ada) == 1
        }
        #expect(writer.written.body.isEmpty)
        _ = try await deliver(harness, "second")
        let events = Self.events(await writer.response().body)
        #expect(events.count == 1)
        #expect(events.first?.id == String(try await state(harness)))
        let changed = events.first?.data?["changed"]?["acct-ada"]?.objectValue?.map(\.0)
        #expect(changed == ["EmailDelivery"])
    }

    @Test(
        "a Last-Event-ID older than the log or never issued gets the current state at once",
        arguments: StorageBackend.allCases)
    func unknownLastEventID(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        _ = try await deliver(harness, "one")
        for last in ["999999", "abc"] {
            let events = Self.events(await harness.openStream(Self.everything, bearer: "ada", lastEventID: last).response().body)
            #expect(try await events.map(\.id) == [harness.pushState()])
        }
    }

    @Test(
        "pings come at the asked interval with its value, and no id; the client leaving ends the stream's task",
        arguments: StorageBackend.allCases)
    func pingsAndLeaving(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend) { $0.eventSourcePingRange = 1...300 }
        let now = try await state(harness)
        let writer = harness.openStream("/jmap/eventsource?types=*&closeafter=no&ping=1", bearer: "ada", lastEventID: String(now))
        try await waitUntil("a ping") { Self.events(writer.written.body).count >= 1 }
        let first = Self.events(writer.written.body).first
        #expect(first?.event == "ping" && first?.id == nil && first?.data?["interval"] == 1)
        writer.end()
        try await waitUntil("the stream closed") { harness.streamActivity.all.last == .closed }
        #expect(harness.streamActivity.all.first == .opened)
        #expect(harness.streamActivity.all.contains(.pushed(isState: false)))
    }

    // MARK: - EmailSubmission, with a ledger

    /// A draft to an outside address and its submission, in one request.
    static let sendOutside =
        "[\(JMAPOutboundSubmissionTests.draft(to: ["carol@far.example"])),\(JMAPOutboundSubmissionTests.submit)]"

    @Test(
        "with a ledger, types=* names EmailSubmission at its own state, and the id carries both states",
        arguments: StorageBackend.allCases)
    func submissionStateAtOnce(_ backend: StorageBackend) async throws {
        let harness = try JMAPOutboundSubmissionTests.harness(backend)
        _ = try await harness.api("ada", Self.sendOutside)
        let mail = try await state(harness)
        let events = Self.events(await harness.openStream(Self.everything, bearer: "ada").response().body)
        #expect(events.map(\.id) == ["\(mail).1"])
        let changed = events.first?.data?["changed"]?["acct-ada"]
        #expect(changed?["EmailSubmission"]?.stringValue == "1")
        for type in ["Email", "Mailbox", "Thread", "EmailDelivery"] {
            #expect(changed?[type]?.stringValue == String(mail))
        }
        // A client that saw both states hears nothing until one moves; so does one that gave the mail state alone
        // (EmailSubmission counts from its state when the stream opened), until the next submission.
        for last in ["\(mail).1", String(mail)] {
            let writer = harness.openStream(Self.everything, bearer: "ada", lastEventID: last)
            try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
            #expect(writer.written.body.isEmpty, "Last-Event-ID \(last)")
            writer.end()
            try await waitUntil("the stream closed") { harness.store.changes.waiting(for: Self.ada) == 0 }
        }
        let legacy = harness.openStream(
            "/jmap/eventsource?types=EmailSubmission&closeafter=state&ping=0", bearer: "ada", lastEventID: String(mail))
        try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
        _ = try await harness.api("ada", Self.sendOutside)
        let pushed = Self.events(await legacy.response().body)
        // The id names the states when the event went: the submission is recorded before its email moves to Sent.
        #expect(pushed.map { $0.id.flatMap(EventSourceState.init(id:))?.submission } == ["2"])
        #expect(pushed.first?.data?["changed"]?["acct-ada"] == .object([("EmailSubmission", "2")]))
    }

    @Test(
        "EmailSubmission is pushed when a submission is recorded and when the queue moves its recipient",
        arguments: StorageBackend.allCases)
    func submissionPushed(_ backend: StorageBackend) async throws {
        let harness = try JMAPOutboundSubmissionTests.harness(backend)
        let start = try await state(harness)
        let writer = harness.openStream(
            "/jmap/eventsource?types=EmailSubmission&closeafter=no&ping=0", bearer: "ada", lastEventID: "\(start).0")
        try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
        let responses = try await harness.api("ada", Self.sendOutside)
        #expect(responses[1].arrayValue?[1]["created"]?["s1"]?["id"]?.stringValue != nil)
        try await waitUntil("the submission's event") { Self.events(writer.written.body).count == 1 }
        let recorded = Self.events(writer.written.body)
        let first = try #require(recorded.first?.id.flatMap(EventSourceState.init(id:)))
        #expect(first.submission == "1" && first.mail > start)
        #expect(recorded.first?.data?["changed"]?["acct-ada"] == .object([("EmailSubmission", "1")]))

        // The queue's attempt, as a dispatcher records it (here or on another instance).
        let changes = harness.store.changes
        let queue = OutboundQueue(database: harness.test.database, onSubmissionChange: { changes.announce([$0]) })
        let claim = try #require(try await queue.claim(now: 1_700_000_000, limit: 10).first)
        try await waitUntil("the stream parked again") { harness.store.changes.waiting(for: Self.ada) == 1 }
        #expect(Self.events(writer.written.body).count == 1, "a claim moves no recipient")
        _ = try await queue.complete(
            claim, [OutboundOutcome(recipient: "carol@far.example", status: .accepted("250 2.0.0 Ok"))],
            now: 1_700_000_010)
        try await waitUntil("the delivery's event") { Self.events(writer.written.body).count == 2 }
        let moved = Self.events(writer.written.body)[1]
        #expect(moved.id == "\(try await state(harness)).2", "the mail state once the email was in Sent")
        #expect(moved.data?["changed"]?["acct-ada"] == .object([("EmailSubmission", "2")]))
        writer.end()
        try await waitUntil("the stream closed") { harness.streamActivity.all.last == .closed }
    }

    @Test("streams per client are capped: one more is 429 until one closes", arguments: StorageBackend.allCases)
    func perClientCap(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend) { $0.maxEventStreamsPerClient = 1 }
        let now = try await state(harness)
        let path = "/jmap/eventsource?types=*&closeafter=no&ping=0"
        let first = harness.openStream(path, bearer: "ada", lastEventID: String(now))
        try await waitUntil("the first stream opened") { harness.streamActivity.all == [.opened] }
        let second = await harness.openStream(path, bearer: "ada", lastEventID: String(now)).response()
        #expect(second.status.code == 429)
        first.end()
        try await waitUntil("the first stream closed") { harness.streamActivity.all.last == .closed }
        let third = harness.openStream(path, bearer: "ada", lastEventID: String(now))
        try await waitUntil("the third stream opened") { harness.streamActivity.all.last == .opened }
        #expect(third.written.status?.code == 200)
        third.end()
    }
}
