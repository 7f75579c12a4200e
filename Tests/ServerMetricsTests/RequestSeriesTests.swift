import Testing

@testable import ServerMetrics

@Suite("Request series: counts and latency buckets summed over the loops' shards, in the text format")
struct RequestSeriesTests {
    @Test("a known answer: cumulative buckets, a bound counts as its own bucket (le), sum and count over shards")
    func knownAnswer() {
        let series = RequestSeries(
            buckets: [.microseconds(100), .milliseconds(1), .seconds(1)], shardCount: 2)
        series.record(route: "/healthz", method: "GET", status: 200, nanoseconds: 100_000, loop: 0)  // on a bound
        series.record(route: "/healthz", method: "GET", status: 200, nanoseconds: 100_001, loop: 1)
        series.record(route: "/healthz", method: "GET", status: 200, nanoseconds: 2_000_000_000, loop: 3)  // shard 1
        series.record(route: "/api/accounts/{id}", method: "other", status: 404, nanoseconds: 7, loop: 1)
        var buffer: [UInt8] = []
        series.emit(into: &buffer)
        let healthz = #"{route="/healthz",method="GET",status="200""#
        let other = #"{route="/api/accounts/{id}",method="other",status="404""#
        let expected = """
            # HELP postern_http_requests_total HTTP requests answered, by route template, method and status.
            # TYPE postern_http_requests_total counter
            postern_http_requests_total\(healthz)} 3
            postern_http_requests_total\(other)} 1
            # HELP postern_http_request_duration_seconds Time from a complete request to its response, by route \
            template, method and status.
            # TYPE postern_http_request_duration_seconds histogram
            postern_http_request_duration_seconds_bucket\(healthz),le="0.0001"} 1
            postern_http_request_duration_seconds_bucket\(healthz),le="0.001"} 2
            postern_http_request_duration_seconds_bucket\(healthz),le="1.0"} 2
            postern_http_request_duration_seconds_bucket\(healthz),le="+Inf"} 3
            postern_http_request_duration_seconds_sum\(healthz)} 2.000200001
            postern_http_request_duration_seconds_count\(healthz)} 3
            postern_http_request_duration_seconds_bucket\(other),le="0.0001"} 1
            postern_http_request_duration_seconds_bucket\(other),le="0.001"} 1
            postern_http_request_duration_seconds_bucket\(other),le="1.0"} 1
            postern_http_request_duration_seconds_bucket\(other),le="+Inf"} 1
            postern_http_request_duration_seconds_sum\(other)} 7e-09
            postern_http_request_duration_seconds_count\(other)} 1

            """
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    @Test("series are told apart by status and method under one route, and label values are escaped")
    func separateSeries() {
        let series = RequestSeries(buckets: [.milliseconds(1)], shardCount: 1)
        for status in [200, 404, 200] {
            series.record(route: #"/a"b\c"#, method: "GET", status: status, nanoseconds: 1, loop: 0)
        }
        series.record(route: #"/a"b\c"#, method: "POST", status: 200, nanoseconds: 1, loop: 5)
        var buffer: [UInt8] = []
        series.emit(into: &buffer)
        let counts = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("postern_http_requests_total{") }
        #expect(
            counts == [
                #"postern_http_requests_total{route="/a\"b\\c",method="GET",status="200"} 2"#,
                #"postern_http_requests_total{route="/a\"b\\c",method="GET",status="404"} 1"#,
                #"postern_http_requests_total{route="/a\"b\\c",method="POST",status="200"} 1"#,
            ])
    }

    @Test("without a request, both families are announced and empty")
    func empty() {
        var buffer: [UInt8] = []
        RequestSeries(buckets: [.seconds(1)], shardCount: 4).emit(into: &buffer)
        let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.hasPrefix("# ") })
    }
}
