import Foundation
import Logging
import PosternTestSupport
import SMTPServer
import SocketServer
import Synchronization
import Testing

@testable import PosternApp

/// The outbound queue as an operator watches it: a real server in direct mode whose message's receiver is down (its
/// MX host's address refuses connections) shows the message deferred on `/metrics`, with its age and the attempts; once
/// the receiver is reachable the message leaves and the gauges are back at zero.
@Suite("Outbound queue on /metrics", .timeLimit(.minutes(2)))
struct OutboundQueueMetricsTests {
    /// The value of `series` (a family with its labels) in a `/metrics` text, nil when absent.
    static func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap {
            Double($0.dropFirst(series.count + 1))
        }
    }

    static let queued = #"postern_outbound_queue_messages{state="queued"}"#
    static let deferred = #"postern_outbound_queue_messages{state="deferred"}"#
    static let oldest = "postern_outbound_oldest_queued_seconds"
    static func attempts(_ result: String) -> String {
        #"postern_outbound_delivery_attempts_total{result="\#(result)"}"#
    }

    @Test(
        "a deferred message shows in the queue's gauges while its receiver is down; they are 0 once it is delivered",
        arguments: StorageBackend.allCases)
    func deferredThenDelivered(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        zone.set("far.test", 15, .mx([.init(10, "mx.far.test")]))
        // Nothing listens on 127.0.0.2: every connection is refused until the address moves to the receiver's.
        zone.set("mx.far.test", 1, .addresses(["127.0.0.2"]))
        let dns = LoopbackDNSServer(zone: zone.answer)
        defer { dns.stop() }
        let receiver = try FarReceiver()
        let clock = TestClock()
        let harness = try await JMAPHarness.start(
            backend, adjust: {
                $0.outbound.mode = .direct
                $0.smtp.hostname = "postern.outbound.test"
                $0.outbound.smtpPort = receiver.port
                $0.dns.resolver = dns.address
                $0.outboundQueue.senders = .all
                $0.outboundQueue.retrySeconds = [1]
            }, clock: { clock.now })
        defer {
            Task {
                await harness.stop()
                await receiver.stop()
            }
        }
        // Scraped every 50 ms while waiting: each scrape reads the database.
        let metrics = {
            try await Task.sleep(for: .milliseconds(50))
            return try await harness.client.request("GET", "/metrics").text
        }
        let before = try await metrics()
        let ada = try await harness.signUp("queue-watcher")
        let sent = try await harness.send(from: ada, to: ["bob@far.test"], subject: "while down", text: "hello")
        let status = sent[1].object("created")?["s1"] as? [String: Any]
        let delivery = (status?["deliveryStatus"] as? [String: Any])?["bob@far.test"] as? [String: Any]
        #expect(delivery?["delivered"] as? String == "queued")

        // The attempt is counted after its outcome is committed, which the gauges read: wait for both (a CI run read
        // the gauges first, the count not yet raised).
        let deferredBefore = Self.value(before, Self.attempts("deferred")) ?? 0
        var text = ""
        try await waitUntil("the first attempt deferred the message", limit: .seconds(30)) {
            text = try await metrics()
            return Self.value(text, Self.deferred) == 1 && Self.value(text, Self.queued) == 0
                && (Self.value(text, Self.attempts("deferred")) ?? 0) > deferredBefore
        }
        #expect((Self.value(text, Self.attempts("deferred")) ?? 0) > deferredBefore)
        #expect(Self.value(text, Self.oldest) == 0, "submitted now")
        clock.advance(90)
        text = try await metrics()
        #expect(Self.value(text, Self.oldest) == 90)
        #expect(Self.value(text, Self.deferred) == 1)
        #expect(receiver.sink.envelopes.isEmpty)

        zone.set("mx.far.test", 1, .addresses(["127.0.0.1"]))
        clock.advance(10)
        try await waitUntil("the receiver took the message", limit: .seconds(30)) { !receiver.sink.envelopes.isEmpty }
        let deliveredBefore = Self.value(before, Self.attempts("delivered")) ?? 0
        try await waitUntil("the gauges are back at zero") {
            text = try await metrics()
            return Self.value(text, Self.deferred) == 0 && Self.value(text, Self.queued) == 0
                && Self.value(text, Self.oldest) == 0
                && (Self.value(text, Self.attempts("delivered")) ?? 0) > deliveredBefore
        }
        #expect((Self.value(text, Self.attempts("delivered")) ?? 0) > deliveredBefore)
        #expect(receiver.sink.envelopes.map(\.recipients) == [["bob@far.test"]])
        #expect(receiver.sink.envelopes.first?.mailFrom == ada.address)
    }
}

/// A receiving MX for `far.test` on 127.0.0.1, port 0: Postern's own SMTP server over ``FarSink``.
final class FarReceiver: Sendable {
    let sink = FarSink()
    let port: Int
    private let group: EventLoopGroup
    private let server: SMTPServer

    init() throws {
        group = try EventLoopGroup(count: 1, pollInterval: .milliseconds(20))
        group.startOnce()
        server = SMTPServer(
            configuration: SMTPServerConfiguration(host: "127.0.0.1", port: 0, hostname: "mx.far.test"), sink: sink,
            group: group, logger: Logger(label: "test.far-mx"))
        port = try server.start()
    }

    func stop() async {
        await server.shutdown()
        await group.shutdownJoining()
    }
}

/// Takes mail for any address at `far.test` and keeps the envelopes; refuses other domains as relay.
final class FarSink: SMTPMailSink {
    private let taken = Mutex<[SMTPEnvelope]>([])

    /// Every envelope taken, in order.
    var envelopes: [SMTPEnvelope] { taken.withLock { $0 } }

    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        address.lowercased().hasSuffix("@far.test") ? .accept : .relayDenied
    }

    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        taken.withLock {
            $0.append(envelope)
            return "F\($0.count)"
        }
    }
}
