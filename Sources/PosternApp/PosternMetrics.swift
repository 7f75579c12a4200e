import CoreMetrics
import Foundation
import HTTP1
import Prometheus
import Synchronization

/// The process's Prometheus registry and the server-level series of `GET /metrics`.
///
/// swift-metrics is bootstrapped once per process with a factory over ``registry``, so the surfaces'
/// facade metrics (proof-of-work results, rate-limit refusals, agent difficulty) land in the same
/// exposition. Request series are cached per (route, method, status) so the hot path takes one lock.
public final class PosternMetrics: Sendable {
    /// The one registry of this process.
    public static let shared = PosternMetrics()

    /// Where every series lives; `GET /metrics` emits it.
    public let registry: PrometheusCollectorRegistry
    private let openConnections: Prometheus.Gauge
    /// The request series made so far, by route and then by status and method, found without hashing: a
    /// `Dictionary` lookup (the key hashed with SipHash, then compared) was a third of recording a request.
    private let requestSeries = Mutex(LengthGroupedTable<[Series]>())

    private struct Series {
        let status: Int
        let method: String
        let counter: Prometheus.Counter
        let histogram: Prometheus.ValueHistogram
    }

    private static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
    ]

    /// The request histogram's buckets in seconds: it records `Double`s, whose comparisons are one instruction
    /// where `Duration`'s 128-bit ones were a call each (15 per request), and the time is taken in nanoseconds
    /// (`Duration.components` divides 128-bit numbers). The bounds and counts read as before; the sum is now
    /// written as Swift writes a `Double` (`5.2e-05` where it was `0.000052`), which Prometheus reads alike.
    private static let latencyBucketSeconds = latencyBuckets.map { $0 / .seconds(1) }

    private static var requestsDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "postern", subsystem: "http", metricName: "requests", unitName: "total",
            helpText: "HTTP requests answered, by route template, method and status.")
    }

    private static var durationDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "postern", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from a complete request to its response, by route template, method and status.")
    }

    private init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        openConnections = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "postern", metricName: "open", unitName: "connections",
                helpText: "Client connections currently open."))
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.latencyBuckets
        MetricsSystem.bootstrap(factory)
    }

    /// Records one answered request under its route template (`/api/accounts/{id}`, or `unmatched`).
    ///
    /// A method outside the seven standard ones is recorded as `other`: the parser accepts any token as
    /// a method, and a series per spelling would let any client grow the registry (and `/metrics`)
    /// without bound, about 1.5 KiB per distinct token.
    public func recordRequest(route: String, method: HTTPMethod, status: Int, nanoseconds: Int64) {
        let method = method.standardIndex == nil ? "other" : method.rawValue
        let series = requestSeries.withLock { table in
            if let found = table[route]?.first(where: { $0.status == status && $0.method == method }) { return found }
            let labels = [("route", route), ("method", method), ("status", String(status))]
            let made = Series(
                status: status, method: method,
                counter: registry.makeCounter(descriptor: Self.requestsDescriptor, labels: labels),
                histogram: registry.makeValueHistogram(
                    descriptor: Self.durationDescriptor, labels: labels, buckets: Self.latencyBucketSeconds))
            table.modify(route, initial: []) { $0.append(made) }
            return made
        }
        series.counter.increment()
        series.histogram.record(Double(nanoseconds) / 1e9)
    }

    /// The Prometheus text exposition, with the open-connection gauge refreshed first.
    public func exposition(openConnectionCount: Int) -> [UInt8] {
        openConnections.set(Double(openConnectionCount))
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }
}
