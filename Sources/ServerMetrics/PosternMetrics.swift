import CoreMetrics
import Foundation
import HTTP1
import OutboundQueue
import Prometheus

/// The process's Prometheus registry and the server-level series of `GET /metrics`.
///
/// swift-metrics is bootstrapped once per process with a factory over ``registry``, so the surfaces'
/// facade metrics (proof-of-work results, rate-limit refusals, agent difficulty) land in the same
/// exposition. The request series, written on every request, are ``RequestSeries``, emitted after the registry.
public final class PosternMetrics: Sendable {
    /// Where every series lives; `GET /metrics` emits it.
    public let registry: PrometheusCollectorRegistry
    private let openConnections: Prometheus.Gauge
    private let mailWaiters: Prometheus.Gauge
    private let storageBytes: Prometheus.Gauge
    private let outboxMessages: Prometheus.Gauge
    private let queuedMessages: Prometheus.Gauge
    private let deferredMessages: Prometheus.Gauge
    private let oldestQueuedSeconds: Prometheus.Gauge
    /// The request series, written on every request (``RequestSeries`` says why they are not the registry's).
    private let requests = RequestSeries(buckets: PosternMetrics.latencyBuckets, shardCount: 16)

    private static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
    ]

    /// A registry whose `postern_build_info` names `version`, and swift-metrics bootstrapped over it.
    /// - Warning: once per process (swift-metrics is bootstrapped once): the composition root makes the one
    ///   `PosternMetrics.shared`.
    package init(version: String) {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        func gauge(_ name: String, _ labels: [(String, String)] = []) -> Prometheus.Gauge {
            registry.makeGauge(descriptor: PosternMetricsFactory.descriptor(name), labels: labels)
        }
        gauge("postern_build_info", [("version", version)]).set(Double(1))
        openConnections = gauge("postern_open_connections")
        mailWaiters = gauge("postern_mail_waiting_requests")
        storageBytes = gauge("postern_storage_bytes")
        outboxMessages = gauge("postern_outbox_messages")
        queuedMessages = gauge("postern_outbound_queue_messages", [("state", "queued")])
        deferredMessages = gauge("postern_outbound_queue_messages", [("state", "deferred")])
        oldestQueuedSeconds = gauge("postern_outbound_oldest_queued_seconds")
        MetricsSystem.bootstrap(PosternMetricsFactory(registry: registry, durationBuckets: Self.latencyBuckets))
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

    /// What `/metrics` reads at scrape time besides the registry.
    public struct Snapshot: Sendable {
        /// The server's open connections.
        public var openConnections: Int
        /// Requests waiting for mail (`/messages/wait`).
        public var mailWaiters: Int
        /// The database's size in bytes; nil when it could not be read (the gauge keeps its last value).
        public var storageBytes: Int64?
        /// Messages held in the outbox (`mail_outbox`); nil when it could not be read.
        public var outboxMessages: Int64?
        /// The outbound queue's levels; nil when they could not be read.
        public var outboundQueue: OutboundQueueLevels?

        /// What was read now.
        public init(
            openConnections: Int, mailWaiters: Int, storageBytes: Int64? = nil, outboxMessages: Int64? = nil,
            outboundQueue: OutboundQueueLevels? = nil
        ) {
            self.openConnections = openConnections
            self.mailWaiters = mailWaiters
            self.storageBytes = storageBytes
            self.outboxMessages = outboxMessages
            self.outboundQueue = outboundQueue
        }
    }

    /// The Prometheus text exposition, with the gauges read at scrape time refreshed first.
    public func exposition(_ snapshot: Snapshot) -> [UInt8] {
        openConnections.set(Double(snapshot.openConnections))
        mailWaiters.set(Double(snapshot.mailWaiters))
        if let bytes = snapshot.storageBytes { storageBytes.set(Double(bytes)) }
        if let held = snapshot.outboxMessages { outboxMessages.set(Double(held)) }
        if let levels = snapshot.outboundQueue {
            queuedMessages.set(Double(levels.queuedMessages))
            deferredMessages.set(Double(levels.deferredMessages))
            oldestQueuedSeconds.set(Double(levels.oldestQueuedSeconds))
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        requests.emit(into: &buffer)
        return buffer
    }
}
