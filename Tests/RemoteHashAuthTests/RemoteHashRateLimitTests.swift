import HTTP1
import JWT
import PosternTestSupport
import Testing

@testable import RemoteHashAuth

@Suite("Remote hash rate limit")
struct RemoteHashRateLimitTests {
    @Test(
        "every address of one IPv6 /64 shares a bucket; another /64, and IPv4 ones, have their own",
        arguments: StorageBackend.allCases)
    func ipv6PerSlash64(_ backend: StorageBackend) async throws {
        let h = try Harness(backend) { $0.rateLimitsEnabled = true }
        for index in 0..<60 {
            #expect(await h.api(.POST, "/validate", from: "2001:db8:0:1::\(String(index + 1, radix: 16))").status == 401)
        }
        #expect(await h.api(.POST, "/validate", from: "2001:db8:0:1:ffff:ffff:ffff:fffe").status == 429)
        #expect(await h.api(.POST, "/validate", from: "2001:db8:0:2::1").status == 401)
        // IPv4-mapped IPv6 and plain IPv4 are one client.
        for _ in 0..<60 { #expect(await h.api(.POST, "/validate", from: "192.0.2.1").status == 401) }
        #expect(await h.api(.POST, "/validate", from: "::ffff:192.0.2.1").status == 429)
    }

    @Test(
        "a refused request counts in postern_rate_limit_rejections_total{surface=remote-hash,class=public}",
        arguments: StorageBackend.allCases)
    func rejectionMetric(_ backend: StorageBackend) async throws {
        let metrics = RecordingMetricsFactory()
        let h = try Harness(backend, metricsFactory: metrics) { $0.rateLimitsEnabled = true }
        let dimensions = [("surface", "remote-hash"), ("class", "public")]
        for _ in 0..<60 { #expect(await h.api(.POST, "/validate", from: "2001:db8:5::1").status == 401) }
        #expect(metrics.total("postern_rate_limit_rejections_total", dimensions) == 0)
        let refused = await h.api(.POST, "/validate", from: "2001:db8:5::2")
        #expect(refused.status == 429)
        #expect(refused.json == .object([("error", "Too many requests.")]))
        #expect(await h.api(.GET, "/login_test", from: "2001:db8:5:0:1::9").status == 429)
        #expect(metrics.total("postern_rate_limit_rejections_total", dimensions) == 2)
        #expect(await h.api(.POST, "/validate", from: "2001:db8:6::1").status == 401)
        #expect(metrics.total("postern_rate_limit_rejections_total", dimensions) == 2)
    }
}
