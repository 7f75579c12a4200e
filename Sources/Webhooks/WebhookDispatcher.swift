import LeasedQueue
import Logging
import MailStore
import Metrics
import ServiceLifecycle

/// Delivers the webhook queue: each instance runs one. It claims due events (``WebhookQueue``), POSTs each signed
/// (``WebhookSignature``) through the ``WebhookTransport`` (the shared fetcher's I/O threads), and completes it.
///
/// Its loop is the ``QueueRunner`` every leased queue runs: it wakes when mail changes (this instance's deliveries, and
/// other instances' through PostgreSQL's notifications, both announced on ``MailChanges``, whose
/// ``MailChanges/anyChange`` it waits on), when the next retry or lease falls due, and at the latest every
/// ``Settings/idleInterval`` (mail another process wrote to the same SQLite file announces nothing here).
///
/// A service of the runtime's group: ``run()`` delivers until the group's graceful shutdown (or cancellation), then
/// returns after the round in progress.
public final class WebhookDispatcher: Service, Sendable {
    /// The settings of a dispatcher; every default stated.
    public struct Settings: Sendable {
        /// Events claimed per round (different webhooks' delivered concurrently). Default 16.
        public var batch = 16
        /// The longest sleep between looks at the queue. Default 1 s.
        public var idleInterval: Duration = .seconds(1)

        public init() {}
    }

    let queue: WebhookQueue
    let transport: any WebhookTransport
    let changes: MailChanges
    let settings: Settings
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64
    let logger: Logger
    private let attempts: [String: Counter]
    private let depthGauge: Gauge
    /// The loop: a round of claims, then a wait on the mail store's changes.
    private let runner: QueueRunner

    /// - Parameters:
    ///   - queue: the shared queue.
    ///   - transport: what sends the POSTs.
    ///   - changes: the mail store's change announcements (wakes the dispatcher).
    ///   - clock: Unix milliseconds; injected so tests can move time past the retry delays.
    ///   - metricsFactory: where `postern_webhook_attempts_total{result}` and `postern_webhook_queue_depth` go; nil
    ///     uses `MetricsSystem.factory`.
    public init(
        queue: WebhookQueue, transport: any WebhookTransport, changes: MailChanges, settings: Settings = Settings(),
        clock: @escaping @Sendable () -> Int64, logger: Logger, metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.queue = queue
        self.transport = transport
        self.changes = changes
        self.settings = settings
        self.clock = clock
        self.logger = logger
        let factory = metricsFactory ?? MetricsSystem.factory
        var attempts: [String: Counter] = [:]
        for result in ["delivered", "http_error", "network_error"] {
            attempts[result] = Counter(
                label: "postern_webhook_attempts_total", dimensions: [("result", result)], factory: factory)
        }
        self.attempts = attempts
        self.runner = QueueRunner(
            wakeup: changes.anyChange, idleInterval: settings.idleInterval, logger: logger,
            failure: "webhook queue unavailable")
        self.depthGauge = Gauge(label: "postern_webhook_queue_depth", factory: factory)
    }

    /// The headers of one attempt sent at `timestamp` (Unix seconds).
    static func headers(_ job: WebhookJob, body: [UInt8], timestamp: Int64) -> [(String, String)] {
        [
            ("Content-Type", "application/json"), ("X-Webhook-ID", job.eventID),
            ("X-Webhook-Timestamp", String(timestamp)),
            ("X-Webhook-Signature", WebhookSignature.header(secret: job.secret, timestamp: timestamp, body: body)),
        ]
    }

    /// One round: claims the due events, delivers them and completes each: one webhook's events one after another in
    /// the order their messages arrived, different webhooks' concurrently. Returns how many were attempted.
    /// - Throws: storage errors of the claim (a completion that fails is logged; its lease runs out and it is retried).
    @discardableResult
    public func runOnce() async throws -> Int {
        let jobs = try await queue.claim(now: clock(), limit: settings.batch)
        var byWebhook: [String: [WebhookJob]] = [:]
        var webhooks: [String] = []
        for job in jobs {
            if byWebhook[job.webhookID] == nil { webhooks.append(job.webhookID) }
            byWebhook[job.webhookID, default: []].append(job)
        }
        await withTaskGroup(of: Void.self) { group in
            for webhook in webhooks {
                let ordered = byWebhook[webhook] ?? []
                group.addTask { for job in ordered { await self.deliver(job) } }
            }
        }
        if let depth = try? await queue.depth() { depthGauge.record(depth) }
        return jobs.count
    }

    private func deliver(_ job: WebhookJob) async {
        let body = WebhookPayload.body(job)
        let headers = Self.headers(job, body: body, timestamp: clock() / 1000)
        let result = await transport.post(job.url, headers: headers, body: body)
        let label = result.delivered ? "delivered" : (result.statusCode == nil ? "network_error" : "http_error")
        attempts[label]?.increment()
        do {
            let outcome = try await queue.complete(job, result: result, now: clock())
            if outcome == .exhausted {
                logger.notice(
                    "webhook failed after its last retry", metadata: ["webhook": "\(job.webhookID)", "event": "\(job.eventID)"])
            }
        } catch {
            logger.error("recording a webhook attempt failed", metadata: ["error": "\(error)", "event": "\(job.eventID)"])
        }
    }

    /// Delivers the queue until the service group's graceful shutdown or the calling task's cancellation, then
    /// returns after the round in progress.
    public func run() async {
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        await runner.run {
            if try await runOnce() > 0 { return .worked }
            guard let due = try await queue.nextDue() else { return QueueRunner.Round(worked: false) }
            return QueueRunner.Round(worked: false, nextDueIn: .milliseconds(max(0, due - clock())))
        }
    }
}
