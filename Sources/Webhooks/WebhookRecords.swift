/// One webhook row (`mailbox_webhooks`).
struct WebhookRecord: Sendable, Equatable {
    var id: String
    var ownerID: String
    var url: String
    var events: [String]
    /// `whsec_` + 64 hex characters: the HMAC key exactly as the user was shown it.
    var secret: String
    /// `active`, or `failed` once an event's last retry failed.
    var status: String
    /// Consecutive failed attempts; a 2xx or a rotation resets it.
    var failureCount: Int64
    /// Unix seconds of the last attempt.
    var lastTriggeredAt: Int64?
    var createdAt: Int64
}

/// One logged delivery attempt (`mailbox_webhook_deliveries`).
public struct WebhookDeliveryRecord: Sendable, Equatable {
    /// The attempt's id.
    public var id: String
    /// `evt_<uuid>`, as the `X-Webhook-ID` header.
    public var eventID: String
    /// `email.received`.
    public var eventType: String
    /// 1-based.
    public var attempt: Int64
    /// nil when no response came (network error, timeout, refused target).
    public var statusCode: Int64?
    /// Why the attempt failed (`timeout`, `HTTP 500`, ...), nil after a 2xx.
    public var error: String?
    /// How long it took, nil when unknown.
    public var durationMS: Int64?
    /// Unix milliseconds.
    public var createdMS: Int64
}

/// A claimed event, with what its delivery needs: the webhook's URL and secret and the message's summary.
public struct WebhookJob: Sendable, Equatable {
    /// `evt_<message id>`.
    public var eventID: String
    public var eventType: String
    public var webhookID: String
    public var url: String
    public var secret: String
    public var messageID: String
    public var address: String
    public var accountID: String?
    /// The `From` header as the store keeps it: JSON `[{"name","email"}]`.
    public var fromJSON: String
    public var envelopeFrom: String
    public var subject: String?
    public var preview: String
    public var size: Int64
    /// Unix seconds.
    public var receivedAt: Int64
    /// Attempts made before this one.
    public var attempts: Int64
    /// The claim that holds the row; completing with another token does nothing.
    public var leaseToken: String
}

/// What one delivery attempt came to.
public struct WebhookAttemptResult: Sendable, Equatable {
    /// The response status; nil when none came.
    public var statusCode: Int?
    /// Why it failed: `HTTP 500`, `timeout`, `connection failed`, `address not allowed (loopback)`; nil on a 2xx.
    public var error: String?
    /// Milliseconds from sending to the answer (or the failure).
    public var durationMS: Int64

    public init(statusCode: Int?, error: String?, durationMS: Int64) {
        self.statusCode = statusCode
        self.error = error
        self.durationMS = durationMS
    }

    /// A 2xx answer acknowledges the event.
    public var delivered: Bool { statusCode.map { (200...299).contains($0) } ?? false }
}
