import Foundation
import LeasedQueue
import Storage

/// The durable queue of webhook events (`migrations/*/0018_mailbox_webhooks.sql`), shared by every instance over the
/// same database.
///
/// Rows are written by ``WebhookArrivals`` in the delivery's transaction, with the message they announce. An instance ``claim(now:limit:)``s
/// due rows by setting a lease (a deadline and a token of its own; on PostgreSQL the rows are picked with
/// `FOR UPDATE SKIP LOCKED`, so concurrent claims never share a row), delivers them, and ``complete(_:result:now:)``s
/// each under the same token: a delivery that outlived its lease was retried by someone else and records nothing.
/// Delivery is at least once: a crash after sending and before completing sends again when the lease runs out.
/// Times are Unix milliseconds from the caller's clock.
public struct WebhookQueue: Sendable {
    let database: any SQLDatabase
    /// The delay before each retry, in milliseconds: attempt `n + 1` waits `retryDelays[n - 1]` after attempt `n`.
    public let retryDelays: [Int64]
    /// How long a claim holds its rows. Longer than one delivery can take: a POST waits at most 20 s for a fetch
    /// thread (`Fetcher.post`'s `startWithin`), then has the fetcher's whole-request deadline (5 s).
    public let lease: Int64
    /// Delivery attempts the log keeps per webhook (`GET .../deliveries` shows them).
    public static let loggedAttempts = 20

    /// A queue over a database migrated through `0018_mailbox_webhooks.sql`.
    /// - Parameters:
    ///   - retryDelaySeconds: `POSTERN_WEBHOOK_RETRY_SECONDS`.
    ///   - leaseMilliseconds: how long a claim holds its rows. Default 30 s.
    public init(database: any SQLDatabase, retryDelaySeconds: [Int], leaseMilliseconds: Int64 = 30_000) {
        self.database = database
        self.retryDelays = retryDelaySeconds.map { Int64($0) * 1000 }
        self.lease = leaseMilliseconds
    }

    /// What completing an attempt did.
    public enum Outcome: Sendable, Equatable {
        /// A 2xx: the event is done.
        case delivered
        /// Failed; the next attempt is due at this time.
        case retryAt(Int64)
        /// The last attempt failed: the event is dropped and the webhook's status is now `failed`.
        case exhausted
        /// The claim had lost its lease (or the webhook was deleted): nothing was recorded.
        case leaseLost
    }

    /// The events' lease, as every leased queue holds its rows.
    static let rows = LeasedRows(
        table: "mailbox_webhook_events", nextAttempt: "next_attempt_ms", leaseUntil: "lease_until_ms",
        parent: LeasedRows.Parent(
            table: "mailbox_webhooks", key: "webhook_id", match: LeasedRows.Match("status", .text("active"))))
    /// The events of active webhooks.
    private static let activeEvents = "mailbox_webhook_events e JOIN mailbox_webhooks w ON w.id = e.webhook_id"

    /// Leases up to `limit` due events of active webhooks, oldest due first (events due together in the order their
    /// messages arrived, their `received_seq` kept with each event), and returns them in that order.
    public func claim(now: Int64, limit: Int) async throws -> [WebhookJob] {
        let token = LeasedRows.newToken()
        return try await database.write { [lease] connection in
            try connection.transaction {
                try Self.rows.lease(
                    orderedBy: ["next_attempt_ms", "received_seq", "id"], limit: limit, to: token, until: now + lease,
                    now: now, connection)
                return try connection.query(
                    """
                    SELECT e.id, e.event_type, e.webhook_id, w.url, w.secret, e.message_id, e.address, e.account_id,
                        e.from_json, e.envelope_from, e.subject, e.preview, e.size, e.received_at, e.attempts
                    FROM \(Self.activeEvents) WHERE e.\(Self.rows.heldBy) ORDER BY e.next_attempt_ms, e.received_seq, e.id
                    """, [.text(token)]
                ).compactMap { Self.job($0, token: token) }
            }
        }
    }

    /// Records one attempt of `job` (the delivery log keeps the newest ``loggedAttempts`` per webhook) and moves the
    /// event on: done after a 2xx (the webhook's failure count back to 0), else due again after the next delay, or
    /// dropped after the last one with the webhook set `failed`. One transaction; nothing when the lease was lost.
    @discardableResult
    public func complete(_ job: WebhookJob, result: WebhookAttemptResult, now: Int64) async throws -> Outcome {
        let attempt = job.attempts + 1
        let retryDelays = retryDelays
        return try await database.write { connection in
            try connection.transaction {
                guard
                    try !connection.query(
                        "SELECT id FROM mailbox_webhook_events WHERE id = ? AND \(Self.rows.heldBy)",
                        [.text(job.eventID), .text(job.leaseToken)]
                    ).isEmpty
                else { return .leaseLost }
                try connection.run(
                    """
                    INSERT INTO mailbox_webhook_deliveries (id, webhook_id, event_id, event_type, attempt, status_code,
                        error, duration_ms, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(UUID().uuidString.lowercased()), .text(job.webhookID), .text(job.eventID),
                        .text(job.eventType), .integer(attempt), result.statusCode.map { .integer(Int64($0)) } ?? .null,
                        result.error.map(SQLValue.text) ?? .null, .integer(result.durationMS), .integer(now),
                    ])
                try connection.run(
                    """
                    DELETE FROM mailbox_webhook_deliveries WHERE webhook_id = ? AND id NOT IN (
                        SELECT id FROM mailbox_webhook_deliveries WHERE webhook_id = ?
                        ORDER BY created_ms DESC, attempt DESC, id DESC LIMIT ?)
                    """, [.text(job.webhookID), .text(job.webhookID), .integer(Int64(Self.loggedAttempts))])
                // A failure signed with a secret rotated away meanwhile says nothing about the new one: sent again at
                // once under the new secret, neither counted nor held against the webhook.
                let rotated = try connection.query(
                    "SELECT secret FROM mailbox_webhooks WHERE id = ?", [.text(job.webhookID)]
                ).first?.text("secret") != job.secret
                if rotated && !result.delivered {
                    try connection.run(
                        """
                        UPDATE mailbox_webhook_events SET next_attempt_ms = ?, \(Self.rows.released) WHERE id = ?
                        """, [.integer(now), .text(job.eventID)])
                    return .retryAt(now)
                }
                let outcome: Outcome
                if result.delivered {
                    outcome = .delivered
                } else if attempt <= Int64(retryDelays.count) {
                    outcome = .retryAt(now + retryDelays[Int(attempt - 1)])
                } else {
                    outcome = .exhausted
                }
                switch outcome {
                case .retryAt(let due):
                    try connection.run(
                        """
                        UPDATE mailbox_webhook_events SET attempts = ?, next_attempt_ms = ?, \(Self.rows.released)
                        WHERE id = ?
                        """, [.integer(attempt), .integer(due), .text(job.eventID)])
                default:
                    try connection.run("DELETE FROM mailbox_webhook_events WHERE id = ?", [.text(job.eventID)])
                }
                let webhookChange =
                    switch outcome {
                    case .delivered: "failure_count = 0"
                    case .exhausted: "failure_count = failure_count + 1, status = 'failed'"
                    default: "failure_count = failure_count + 1"
                    }
                try connection.run(
                    "UPDATE mailbox_webhooks SET \(webhookChange), last_triggered_at = ? WHERE id = ?",
                    [.integer(now / 1000), .text(job.webhookID)])
                return outcome
            }
        }
    }

    /// Events waiting, every webhook's (the `postern_webhook_queue_depth` gauge).
    public func depth() async throws -> Int64 {
        try await database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mailbox_webhook_events").first?.int("n") ?? 0
        }
    }

    /// When the next event of an active webhook falls due (or its lease runs out), nil when none waits.
    public func nextDue() async throws -> Int64? {
        try await database.read { try Self.rows.nextDue($0) }
    }

    private static func job(_ row: SQLRow, token: String) -> WebhookJob? {
        guard let id = row.text("id"), let type = row.text("event_type"), let webhook = row.text("webhook_id"),
            let url = row.text("url"), let secret = row.text("secret"), let message = row.text("message_id"),
            let address = row.text("address"), let from = row.text("from_json"),
            let envelopeFrom = row.text("envelope_from"), let preview = row.text("preview"),
            let size = row.int("size"), let receivedAt = row.int("received_at"), let attempts = row.int("attempts")
        else { return nil }
        return WebhookJob(
            eventID: id, eventType: type, webhookID: webhook, url: url, secret: secret, messageID: message,
            address: address, accountID: row.text("account_id"), fromJSON: from, envelopeFrom: envelopeFrom,
            subject: row.text("subject"), preview: preview, size: size, receivedAt: receivedAt, attempts: attempts,
            leaseToken: token)
    }
}
