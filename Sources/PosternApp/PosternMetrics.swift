import CoreMetrics
import Foundation
import HTTP1
import Prometheus

/// The process's Prometheus registry and the server-level series of `GET /metrics`.
///
/// swift-metrics is bootstrapped once per process with a factory over ``registry``, so the surfaces'
/// facade metrics (proof-of-work results, rate-limit refusals, agent difficulty) land in the same
/// exposition. The request series, written on every request, are ``RequestSeries``, emitted after the registry.
public final class PosternMetrics: Sendable {
    /// The one registry of this process.
    public static let shared = PosternMetrics()

    /// Where every series lives; `GET /metrics` emits it.
    public let registry: PrometheusCollectorRegistry
    private let openConnections: Prometheus.Gauge
    private let mailWaiters: Prometheus.Gauge
    /// The request series, written on every request (``RequestSeries`` says why they are not the registry's).
    private let requests = RequestSeries(buckets: PosternMetrics.latencyBuckets, shardCount: 16)

    private static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
    ]

    private init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        openConnections = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "postern", metricName: "open", unitName: "connections",
                helpText: "Client connections currently open."))
        mailWaiters = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "postern", metricName: "mail_waiting", unitName: "requests",
                helpText: "Requests parked until their address's mail changes (/messages/wait)."))
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.latencyBuckets
        MetricsSystem.bootstrap(factory)
    }

    /// Records one answered request under its route template (`/api/accounts/{id}`, or `unmatched`), on the shard
    /// of the event loop `loop` that answered it.
    ///
    /// A method outside the seven standard ones is recorded as `other`: the parser accepts any token as
    /// a method, and a series per spelling would let any client grow the series (and `/metrics`)
    /// without bound.
    public func recordRequest(route: String, method: HTTPMethod, status: Int, nanoseconds: UInt64, loop: Int) {
        let method = method.standardIndex == nil ? "other" : method.rawValue
        requests.record(route: route, method: method, status: status, nanoseconds: nanoseconds, loop: loop)
    }

    /// The Prometheus text exposition, with the open-connection and mail-waiter gauges refreshed first.
    public func exposition(openConnectionCount: Int, mailWaiterCount: Int) -> [UInt8] {
        openConnections.set(Double(openConnectionCount))
        mailWaiters.set(Double(mailWaiterCount))
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        requests.emit(into: &buffer)
        return buffer
    }
}
