import MailDelivery
import OutboundQueue
import ServerKit
import Testing

/// The queue's keys: the documented defaults, each key read, and a bad value refused naming its key.
@Suite("Outbound queue configuration")
struct OutboundQueueConfigurationTests {
    static func read(_ values: [String: String]) throws -> OutboundQueueConfiguration {
        try OutboundQueueConfiguration(config: ConfigurationReader { values[$0] })
    }

    @Test("unset keys keep the documented defaults; set ones are read")
    func defaultsAndValues() throws {
        let defaults = try Self.read([:])
        #expect(defaults == OutboundQueueConfiguration())
        #expect(defaults.senders == .owned && defaults.perHour == 100 && defaults.perDay == 1000)
        #expect(defaults.retrySeconds == [300, 900, 1800, 3600, 7200, 14400, 28800])
        #expect(
            defaults.maxQueueSeconds == 432_000 && defaults.perDestination == 2 && defaults.suppressSeconds == 604_800)
        #expect(defaults.leaseSeconds == 60)
        #expect(defaults.messagesPerConnection == 20 && defaults.delayNoticeSeconds == 14_400)
        let set = try Self.read([
            "POSTERN_OUTBOUND_SENDERS": "ALL", "POSTERN_OUTBOUND_PER_HOUR": "5", "POSTERN_OUTBOUND_PER_DAY": "50",
            "POSTERN_OUTBOUND_RETRY_SECONDS": "60, 120", "POSTERN_OUTBOUND_MAX_QUEUE_SECONDS": "600",
            "POSTERN_OUTBOUND_PER_DESTINATION": "4", "POSTERN_OUTBOUND_SUPPRESS_SECONDS": "30",
            "POSTERN_OUTBOUND_LEASE_SECONDS": "10",
            "POSTERN_OUTBOUND_MESSAGES_PER_CONNECTION": "1", "POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS": "0",
        ])
        #expect(set.messagesPerConnection == 1 && set.delayNoticeSeconds == 0)
        #expect(set.senders == .all && set.perHour == 5 && set.perDay == 50 && set.retrySeconds == [60, 120])
        #expect(set.maxQueueSeconds == 600 && set.perDestination == 4 && set.suppressSeconds == 30)
        #expect(set.leaseSeconds == 10)
        #expect([1, 2, 3, 9].map(set.retryDelay(afterAttempt:)) == [60, 120, 120, 120])
    }

    @Test("the send limits every submission counts against are the queue's: hourly and daily per sender, hourly per owner")
    func sendLimits() throws {
        let set = try Self.read([
            "POSTERN_OUTBOUND_PER_HOUR": "5", "POSTERN_OUTBOUND_PER_DAY": "50", "POSTERN_OUTBOUND_OWNER_PER_HOUR": "7",
        ])
        #expect(
            set.sendLimits == [
                SendLimit(name: "hourly", count: 5, windowSeconds: 3600),
                SendLimit(name: "daily", count: 50, windowSeconds: 86_400),
                SendLimit(name: "hourly", count: 7, windowSeconds: 3600, scope: .holder),
            ])
    }

    @Test(
        "a bad value is refused naming its key",
        arguments: [
            ("POSTERN_OUTBOUND_SENDERS", "some"), ("POSTERN_OUTBOUND_PER_HOUR", "0"), ("POSTERN_OUTBOUND_PER_DAY", "x"),
            ("POSTERN_OUTBOUND_RETRY_SECONDS", "60,soon"), ("POSTERN_OUTBOUND_RETRY_SECONDS", "0"),
            ("POSTERN_OUTBOUND_MAX_QUEUE_SECONDS", "-1"), ("POSTERN_OUTBOUND_PER_DESTINATION", "65"),
            ("POSTERN_OUTBOUND_SUPPRESS_SECONDS", "0"), ("POSTERN_OUTBOUND_LEASE_SECONDS", "0"),
            ("POSTERN_OUTBOUND_LEASE_SECONDS", "3601"),
            ("POSTERN_OUTBOUND_SUPPRESS_SECONDS", "0"), ("POSTERN_OUTBOUND_MESSAGES_PER_CONNECTION", "0"),
            ("POSTERN_OUTBOUND_MESSAGES_PER_CONNECTION", "1001"), ("POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS", "-1"),
        ])
    func refused(key: String, value: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.read([key: value]) }
        #expect(error?.key == key)
    }
}
