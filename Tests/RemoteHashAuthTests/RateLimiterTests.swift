import Foundation
import HTTP1
import JWT
import Metrics
import Testing

@testable import RemoteHashAuth

/// Counts counter increments by label and dimensions; every other metric goes nowhere.
final class RecordingMetricsFactory: MetricsFactory, @unchecked Sendable {
    // @unchecked: `counters` is only touched under `lock`; each counter guards its own value.
    final class RecordingCounter: CounterHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int64 = 0
        var total: Int64 {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
        func increment(by amount: Int64) {
            lock.lock()
            value += amount
            lock.unlock()
        }
        func reset() {
            lock.lock()
            value = 0
            lock.unlock()
        }
    }

    private let lock = NSLock()
    private var counters: [String: RecordingCounter] = [:]

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        label + "{" + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "}"
    }

    /// The total of the counter `label` with exactly `dimensions` (in order); 0 when never made.
    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        return counters[Self.key(label, dimensions)]?.total ?? 0
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        lock.lock()
        defer { lock.unlock() }
        let key = Self.key(label, dimensions)
        if let existing = counters[key] { return existing }
        let made = RecordingCounter()
        counters[key] = made
        return made
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: CounterHandler) {}
    func destroyRecorder(_ handler: RecorderHandler) {}
    func destroyTimer(_ handler: TimerHandler) {}
}

@Suite("Remote hash rate limiter")
struct RateLimiterTests {
    @Test("every address of one IPv6 /64 shares a bucket; another /64 has its own")
    func ipv6PerSlash64() {
        let limiter = RateLimiter(perMinute: 60)
        for index in 0..<60 {
            #expect(limiter.take("2001:db8:0:1::\(String(index + 1, radix: 16))", now: 0) == nil)
        }
        #expect(limiter.take("2001:db8:0:1:ffff:ffff:ffff:fffe", now: 0) != nil)
        #expect(limiter.take("2001:db8:0:2::1", now: 0) == nil)
        #expect(limiter.trackedCount == 2)
        // IPv4-mapped IPv6 and plain IPv4 are one client.
        for _ in 0..<60 { #expect(limiter.take("192.0.2.1", now: 0) == nil) }
        #expect(limiter.take("::ffff:192.0.2.1", now: 0) != nil)
    }

    @Test("a flood of new addresses at capacity never resets an existing client's exhausted bucket")
    func floodKeepsExhaustedBucket() {
        let limiter = RateLimiter(perMinute: 60, maxTrackedAddresses: 100)
        for _ in 0..<60 { #expect(limiter.take("198.51.100.7", now: 1000) == nil) }
        #expect(limiter.take("198.51.100.7", now: 1000) != nil)
        for index in 0..<10_000 {
            let address = "10.\(index >> 16 & 0xff).\(index >> 8 & 0xff).\(index & 0xff)"
            #expect(limiter.take(address, now: 1000) == nil)
        }
        for index in 0..<1_000 {
            #expect(limiter.take("2001:db8:\(String(index, radix: 16))::1", now: 1000) == nil)
        }
        #expect(limiter.trackedCount <= 100)
        #expect(limiter.take("198.51.100.7", now: 1000) != nil)
        #expect(limiter.take("198.51.100.7", now: 1001) == nil)
        #expect(limiter.take("198.51.100.7", now: 1001) != nil)
    }

    @Test("at capacity, fully refilled buckets are dropped first and partly used ones kept")
    func refilledBucketsEvicted() {
        let limiter = RateLimiter(perMinute: 60, maxTrackedAddresses: 10)
        for index in 0..<9 { #expect(limiter.take("192.0.2.\(index)", now: 0) == nil) }
        for _ in 0..<60 { #expect(limiter.take("198.51.100.7", now: 30) == nil) }
        #expect(limiter.trackedCount == 10)
        // At 61 s the nine idle buckets are full again (equivalent to fresh ones); the busy one is not.
        #expect(limiter.take("203.0.113.1", now: 61) == nil)
        #expect(limiter.trackedCount == 2)
        for _ in 0..<31 { #expect(limiter.take("198.51.100.7", now: 61) == nil) }
        #expect(limiter.take("198.51.100.7", now: 61) != nil)
    }

    @Test("at capacity with nothing refilled, only a bounded batch is evicted, never the whole table")
    func boundedEviction() {
        let limiter = RateLimiter(perMinute: 60, maxTrackedAddresses: 640)
        for index in 0..<640 { #expect(limiter.take("10.0.\(index >> 8).\(index & 0xff)", now: 0) == nil) }
        #expect(limiter.trackedCount == 640)
        #expect(limiter.take("203.0.113.1", now: 0) == nil)
        // One pass evicts 640 / 64 = 10 buckets to make room for the newcomer.
        #expect(limiter.trackedCount == 631)
    }

    @Test("a refused request counts in postern_rate_limit_rejections_total{surface=remote-hash,class=public}")
    func rejectionMetric() async throws {
        let metrics = RecordingMetricsFactory()
        let h = try Harness(metricsFactory: metrics) { $0.rateLimitsEnabled = true }
        let dimensions = [("surface", "remote-hash"), ("class", "public")]
        for _ in 0..<60 { #expect(await h.api(.POST, "/validate", from: "2001:db8:5::1").status == 401) }
        #expect(metrics.total("postern_rate_limit_rejections_total", dimensions) == 0)
        let refused = await h.api(.POST, "/validate", from: "2001:db8:5::2")
        #expect(refused.status == 429)
        #expect(refused.json == .object([("error", "Too many requests.")]))
        #expect(await h.api(.GET, "/", from: "2001:db8:5:0:1::9").status == 429)
        #expect(metrics.total("postern_rate_limit_rejections_total", dimensions) == 2)
        #expect(await h.api(.POST, "/validate", from: "2001:db8:6::1").status == 401)
        #expect(metrics.total("postern_rate_limit_rejections_total", dimensions) == 2)
    }
}
