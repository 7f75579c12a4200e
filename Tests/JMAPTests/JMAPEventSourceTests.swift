import HTTP1
import JSON
import MailStore
import PosternTestSupport
import ServerKit
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

    @Test("Last-Event-ID: a state is kept, anything else is ignored")
    func lastEventID() throws {
        func last(_ text: String?) throws -> Int64? {
            try EventSourceRequest(types: "*", closeAfter: "no", ping: "0", lastEventID: text, pingRange: 5...300)
                .lastEventState
        }
        #expect(try last("42") == 42)
        #expect(try last(nil) == nil)
        #expect(try last("") == nil)
        #expect(try last("abc") == nil)
        #expect(try last("-3") == nil)
        #expect(try last(String(repeating: "9", count: 30)) == nil)
    }

    @Test("a state event is a StateChange under the account with the state as its id; a ping carries the interval")
    func eventBytes() {
        #expect(
            String(decoding: EventSourceEvent.state(accountID: "a1", types: ["Email", "Thread"], state: 7), as: UTF8.self)
                == "event: state\nid: 7\ndata: {\"@type\":\"StateChange\",\"changed\":{\"a1\":{\"Email\":\"7\",\"Thread\":\"7\"}}}\n\n")
        #expect(String(decoding: EventSourceEvent.ping(interval: 30), as: UTF8.self) == "event: ping\ndata: {\"interval\":30}\n\n")
    }

    // MARK: - Through the route

    @Test("the session names the event source's URL template")
    func session() async throws {
        let harness = try JMAPServiceHarness()
        let response = await harness.send(.GET, "/.well-known/jmap", bearer: "ada")
        let session = try JSONValue.parse(response.body)
        #expect(
            session["eventSourceUrl"]?.stringValue
                == "http://jmap.test/jmap/eventsource?types={types}&closeafter={closeafter}&ping={ping}")
    }

    @Test("no bearer is 401, a bad parameter 400, both in the problem-details shape and before any stream opens")
    func refusals() async throws {
        let harness = try JMAPServiceHarness()
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

    @Test("without Last-Event-ID the current state comes at once; closeafter=state then ends the response")
    func currentStateAtOnce() async throws {
        let harness = try JMAPServiceHarness()
        _ = try await deliver(harness, "one")
        let now = try await state(harness)
        let response = await harness.openStream(Self.everything, bearer: "ada").response()
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"] == "text/event-stream")
        #expect(response.headers["Content-Length"] == nil)
        let events = Self.events(response.body)
        #expect(events.count == 1)
        #expect(events.first?.event == "state" && events.first?.id == String(now))
        let changed = events.first?.data?["changed"]?["acct-ada"]
        #expect(events.first?.data?["@type"] == "StateChange")
        for type in ["Email", "Mailbox", "Thread", "EmailDelivery"] {
            #expect(changed?[type]?.stringValue == String(now))
        }
        try await waitUntil("the stream closed") { harness.streamActivity.all.last == .closed }
        #expect(harness.streamActivity.all == [.opened, .pushed(isState: true), .closed])
    }

    @Test("with Last-Event-ID at the current state, the stream parks on the change stream and an SMTP-like delivery wakes it")
    func wokenByDelivery() async throws {
        let harness = try JMAPServiceHarness()
        let before = try await state(harness)
        let writer = harness.openStream(Self.everything, bearer: "ada", lastEventID: String(before))
        try await waitUntil("the stream parked") { harness.store.changes.waiting(for: Self.ada) == 1 }
        #expect(writer.written.body.isEmpty)
        _ = try await deliver(harness, "wake")
        let response = await writer.response()
        let after = try await state(harness)
        let events = Self.events(response.body)
        #expect(events.map(\.event) == ["state"])
        #expect(events.first?.id == String(after) && after > before)
        #expect(events.first?.data?["changed"]?["acct-ada"]?["EmailDelivery"]?.stringValue == String(after))
    }

    @Test("a flag change is no EmailDelivery: a stream subscribed to EmailDelivery alone waits for the next arrival")
    func emailDeliveryOnlyOnArrival() async throws {
        let harness = try JMAPServiceHarness()
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

    @Test("a Last-Event-ID older than the log or never issued gets the current state at once")
    func unknownLastEventID() async throws {
        let harness = try JMAPServiceHarness()
        _ = try await deliver(harness, "one")
        let now = try await state(harness)
        for last in ["999999", "abc"] {
            let events = Self.events(await harness.openStream(Self.everything, bearer: "ada", lastEventID: last).response().body)
            #expect(events.map(\.id) == [String(now)])
        }
    }

    @Test("pings come at the asked interval with its value, and no id; the client leaving ends the stream's task")
    func pingsAndLeaving() async throws {
        let harness = try JMAPServiceHarness { $0.eventSourcePingRange = 1...300 }
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

    @Test("streams per client are capped: one more is 429 until one closes")
    func perClientCap() async throws {
        let harness = try JMAPServiceHarness { $0.maxEventStreamsPerClient = 1 }
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
