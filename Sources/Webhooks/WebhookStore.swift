import MailboxAccounts
import Storage

/// The webhooks' own rows (`migrations/*/0018_mailbox_webhooks.sql`): each Pro user's webhook and its delivery log.
/// The queue of events is ``WebhookQueue``'s; only this target reads or writes these tables.
public struct WebhookStore: Sendable {
    let database: any SQLDatabase

    /// A store over a database migrated through `0018_mailbox_webhooks.sql`.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    private static let webhookColumns =
        "id, owner_id, url, events, secret, status, failure_count, last_triggered_at, created_at"

    /// The user's webhooks (at most one), oldest first.
    func webhooks(ownerID: String) async throws -> [WebhookRecord] {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.webhookColumns) FROM mailbox_webhooks WHERE owner_id = ? ORDER BY created_at, id",
                [.text(ownerID)]
            ).compactMap(Self.webhook)
        }
    }

    /// The user's webhook with `id`, or nil (another user's is nil too).
    func webhook(id: String, ownerID: String) async throws -> WebhookRecord? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.webhookColumns) FROM mailbox_webhooks WHERE id = ? AND owner_id = ?",
                [.text(id), .text(ownerID)]
            ).first.flatMap(Self.webhook)
        }
    }

    /// Inserts a webhook; the UNIQUE `owner_id` keeps it to one per user, races included (`.webhookLimitReached`).
    func insert(_ record: WebhookRecord) async throws {
        try await database.write { connection in
            do {
                _ = try connection.run(
                    """
                    INSERT INTO mailbox_webhooks (id, owner_id, url, events, secret, status, failure_count,
                        last_triggered_at, created_at) VALUES (?, ?, ?, ?, ?, 'active', 0, NULL, ?)
                    """,
                    [
                        .text(record.id), .text(record.ownerID), .text(record.url),
                        .text(record.events.joined(separator: ",")), .text(record.secret), .integer(record.createdAt),
                    ])
            } catch let error as StorageError where error.code == .constraintUnique {
                throw MailboxError.webhookLimitReached
            }
        }
    }

    /// Deletes the user's webhook with its queued events and its delivery log; false when there was none. No
    /// delivery starts for it afterwards (a claim joins the webhook row); one already sent is not logged.
    func deleteWebhook(id: String, ownerID: String) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                guard
                    try connection.run(
                        "DELETE FROM mailbox_webhooks WHERE id = ? AND owner_id = ?", [.text(id), .text(ownerID)]) > 0
                else { return false }
                try connection.run("DELETE FROM mailbox_webhook_events WHERE webhook_id = ?", [.text(id)])
                try connection.run("DELETE FROM mailbox_webhook_deliveries WHERE webhook_id = ?", [.text(id)])
                return true
            }
        }
    }

    /// Gives the user's webhook a new secret, sets it `active` and its failure count to 0; false when there was
    /// none. Queued events are signed with the new secret from now on; the old one is invalid at once.
    func rotateWebhook(id: String, ownerID: String, secret: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE mailbox_webhooks SET secret = ?, status = 'active', failure_count = 0
                WHERE id = ? AND owner_id = ?
                """, [.text(secret), .text(id), .text(ownerID)]) > 0
        }
    }

    /// The webhook's newest `limit` delivery attempts, newest first.
    func deliveries(webhookID: String, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT id, event_id, event_type, attempt, status_code, error, duration_ms, created_ms
                FROM mailbox_webhook_deliveries WHERE webhook_id = ?
                ORDER BY created_ms DESC, attempt DESC, id DESC LIMIT ?
                """, [.text(webhookID), .integer(Int64(limit))]
            ).compactMap { row in
                guard let id = row.text("id"), let event = row.text("event_id"), let type = row.text("event_type"),
                    let attempt = row.int("attempt"), let created = row.int("created_ms")
                else { return nil }
                return WebhookDeliveryRecord(
                    id: id, eventID: event, eventType: type, attempt: attempt, statusCode: row.int("status_code"),
                    error: row.text("error"), durationMS: row.int("duration_ms"), createdMS: created)
            }
        }
    }

    private static func webhook(_ row: SQLRow) -> WebhookRecord? {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let url = row.text("url"),
            let events = row.text("events"), let secret = row.text("secret"), let status = row.text("status"),
            let failures = row.int("failure_count"), let createdAt = row.int("created_at")
        else { return nil }
        return WebhookRecord(
            id: id, ownerID: owner, url: url, events: events.split(separator: ",").map(String.init), secret: secret,
            status: status, failureCount: failures, lastTriggeredAt: row.int("last_triggered_at"), createdAt: createdAt)
    }
}
