import MailboxAccounts

/// A Pro user's webhook as its user may see it: never the secret, which is shown when it is made or rotated.
public struct WebhookSummary: Sendable, Equatable {
    /// The webhook's id (a UUID).
    public let id: String
    /// Where events are posted (`https`).
    public let url: String
    /// The event types it receives.
    public let events: [String]
    /// `active`, or `failed` once an event's last retry failed.
    public let status: String
    /// Consecutive failed attempts.
    public let failureCount: Int64
    /// Unix seconds of the last attempt, nil before any.
    public let lastTriggeredAt: Int64?
    /// Unix seconds.
    public let createdAt: Int64

    init(_ record: WebhookRecord) {
        id = record.id
        url = record.url
        events = record.events
        status = record.status
        failureCount = record.failureCount
        lastTriggeredAt = record.lastTriggeredAt
        createdAt = record.createdAt
    }
}

/// The rules of a Pro user's webhook, once: the five `/api/user/webhooks` routes and the web inbox's Pro dashboard
/// call these with the Pro user's id (the caller has found the user active), so a rule or limit applies to both.
extension WebhooksController {
    /// The webhooks of Pro user `ownerID` (one at most), without secrets.
    public func webhooks(ownerID: String) async throws -> [WebhookSummary] {
        try await store.webhooks(ownerID: ownerID).map(WebhookSummary.init)
    }

    /// Makes Pro user `ownerID`'s webhook: the webhook and its secret, shown this once. `events` nil or empty means
    /// `["email.received"]`; duplicates are dropped.
    /// - Throws: ``MailboxError/invalidURL`` for anything but a URL ``isWebhookURL(_:policy:)`` accepts,
    ///   ``MailboxError/invalidEvents`` for an unknown event type, ``MailboxError/webhookLimitReached`` for a second
    ///   webhook; storage errors.
    public func createWebhook(ownerID: String, url: String, events: [String]?, now: Int64) async throws
        -> (webhook: WebhookSummary, secret: String)
    {
        let (record, secret) = try await createWebhookRecord(ownerID: ownerID, url: url, events: events, now: now)
        return (WebhookSummary(record), secret)
    }

    func createWebhookRecord(ownerID: String, url: String, events: [String]?, now: Int64) async throws
        -> (WebhookRecord, String)
    {
        guard Self.isWebhookURL(url, policy: surface.configuration.outboundPolicy) else {
            throw MailboxError.invalidURL
        }
        var kept: [String] = []
        for name in events ?? [] {
            guard Self.webhookEventTypes.contains(name) else { throw MailboxError.invalidEvents }
            if !kept.contains(name) { kept.append(name) }
        }
        if kept.isEmpty { kept = ["email.received"] }
        let record = WebhookRecord(
            id: MailboxIdentifiers.uuid(), ownerID: ownerID, url: url, events: kept,
            secret: WebhookSignature.newSecret(), status: "active", failureCount: 0, lastTriggeredAt: nil,
            createdAt: now)
        try await store.insert(record)
        return (record, record.secret)
    }

    /// Deletes Pro user `ownerID`'s webhook `id`; its queued events go with it.
    /// - Throws: ``MailboxError/notFound`` when it is not theirs; storage errors.
    public func deleteWebhook(id: String, ownerID: String) async throws {
        guard MailboxIdentifiers.isUUID(id), try await store.deleteWebhook(id: id, ownerID: ownerID) else {
            throw MailboxError.notFound
        }
    }

    /// A new secret for Pro user `ownerID`'s webhook `id` (the old one stops signing at once), status `active`,
    /// failure count 0: the webhook and the secret, shown this once.
    /// - Throws: ``MailboxError/notFound`` when it is not theirs; storage errors.
    public func rotateWebhook(id: String, ownerID: String) async throws -> (webhook: WebhookSummary, secret: String) {
        let (record, secret) = try await rotateWebhookRecord(id: id, ownerID: ownerID)
        return (WebhookSummary(record), secret)
    }

    func rotateWebhookRecord(id: String, ownerID: String) async throws -> (WebhookRecord, String) {
        let secret = WebhookSignature.newSecret()
        guard MailboxIdentifiers.isUUID(id), try await store.rotateWebhook(id: id, ownerID: ownerID, secret: secret),
            let record = try await store.webhook(id: id, ownerID: ownerID)
        else { throw MailboxError.notFound }
        return (record, secret)
    }

    /// The last 20 delivery attempts of Pro user `ownerID`'s webhook `id`, newest first.
    /// - Throws: ``MailboxError/notFound`` when it is not theirs; storage errors.
    public func deliveries(webhookID id: String, ownerID: String) async throws -> [WebhookDeliveryRecord] {
        guard MailboxIdentifiers.isUUID(id), try await store.webhook(id: id, ownerID: ownerID) != nil else {
            throw MailboxError.notFound
        }
        return try await store.deliveries(webhookID: id, limit: WebhookQueue.loggedAttempts)
    }
}
