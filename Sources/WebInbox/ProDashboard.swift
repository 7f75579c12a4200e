/// The Pro dashboard's port, which the composition root fills with the Mail.td surface's own Pro rules (the very
/// functions `/api/user/tokens`, `/api/user/domains`, `/api/user/webhooks` and `/api/user/sandbox` call), so that every
/// rule and limit of the API applies to the dashboard too. The web inbox holds none of their tables. Every function
/// takes the Pro user's id and acts on that user's things only: another user's id is ``ProDashboardError/notFound``.
public protocol ProDashboard: Sendable {
    /// The user's accounts, oldest first, with their usage.
    func accounts(proUserID: String) async throws -> [ProDashboardAccount]
    /// The user's API tokens, revoked ones too, without secrets.
    func tokens(proUserID: String) async throws -> [ProDashboardToken]
    /// A new `tm_pro_` token named `name` (empty: the API's default): the token, to show once.
    func createToken(proUserID: String, name: String, client: String?) async throws -> String
    /// Revokes the user's token `id`.
    func revokeToken(id: String, proUserID: String, client: String?) async throws
    /// The user's custom domains, oldest first, each with the records to publish.
    func domains(proUserID: String) async throws -> [ProDashboardDomain]
    /// Claims `domain` for the user: the domain as stored (lower-cased).
    func addDomain(_ domain: String, proUserID: String, client: String?) async throws -> String
    /// Looks the records of the user's domain `id` up now.
    func verifyDomain(id: String, proUserID: String, client: String?) async throws -> ProDashboardVerification
    /// Removes the user's domain `id`.
    func deleteDomain(id: String, proUserID: String, client: String?) async throws
    /// The user's webhook (one at most) with its recent delivery attempts, newest first; nil when there is none.
    func webhook(proUserID: String) async throws -> ProDashboardWebhook?
    /// Makes the user's webhook: its signing secret, to show once.
    func createWebhook(proUserID: String, url: String, events: [String]) async throws -> String
    /// A new signing secret for the user's webhook `id` (the old one stops at once): the secret, to show once.
    func rotateWebhook(id: String, proUserID: String) async throws -> String
    /// Deletes the user's webhook `id`.
    func deleteWebhook(id: String, proUserID: String) async throws
    /// The user's SMTP sandbox, nil before its first SMTP connection.
    func sandbox(proUserID: String) async throws -> ProDashboardSandbox?
}

/// Why the dashboard's port refused: the Mail.td API's refusals, which the page words for a person.
public enum ProDashboardError: Error, Sendable, Equatable {
    /// Not the user's (or no such) token, domain or webhook; or the user is no longer active.
    case notFound
    /// A token name over 100 characters.
    case invalidName
    /// Not a domain name.
    case invalidDomain
    /// Someone holds the domain, the server serves it, or the user claims it already.
    case domainTaken
    /// The user has `max_domains` domains already.
    case domainLimitReached
    /// The domain stayed pending past its verification window and was removed.
    case domainExpired
    /// Accounts of the user are still on the domain.
    case domainInUse
    /// Not an `https` URL the outbound policy allows.
    case invalidURL
    /// An event type no webhook receives.
    case invalidEvents
    /// The user has their one webhook already.
    case webhookLimitReached
}

/// One of a Pro user's accounts.
public struct ProDashboardAccount: Sendable, Equatable {
    /// Its address.
    public var address: String
    /// Bytes its mail takes.
    public var used: Int64
    /// Its quota in bytes.
    public var quota: Int64

    /// Memberwise.
    public init(address: String, used: Int64, quota: Int64) {
        self.address = address
        self.used = used
        self.quota = quota
    }
}

/// One API token, never its secret.
public struct ProDashboardToken: Sendable, Equatable {
    /// The token's id (a UUID): what revokes it.
    public var id: String
    /// The name its user gave it.
    public var name: String
    /// Unix seconds.
    public var createdAt: Int64
    /// Unix seconds; nil before its first use.
    public var lastUsedAt: Int64?
    /// Unix seconds; nil while it works.
    public var revokedAt: Int64?

    /// Memberwise.
    public init(id: String, name: String, createdAt: Int64, lastUsedAt: Int64?, revokedAt: Int64?) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// One DNS record to publish, as the API gives it.
public struct ProDashboardRecord: Sendable, Equatable {
    /// `TXT` or `MX`.
    public var type: String
    /// The record's full name: the apex, or `<selector>._domainkey.<domain>`.
    public var host: String
    /// What it must hold.
    public var value: String
    /// The MX preference; nil for TXT.
    public var priority: Int64?
    /// Whether the last lookup of it found it (kept with the domain); nil when none was made.
    public var found: Bool?

    /// Memberwise.
    public init(type: String, host: String, value: String, priority: Int64?, found: Bool?) {
        self.type = type
        self.host = host
        self.value = value
        self.priority = priority
        self.found = found
    }
}

/// One custom domain with the records to publish.
public struct ProDashboardDomain: Sendable, Equatable {
    /// The claim's id (a UUID).
    public var id: String
    /// Lower-cased.
    public var domain: String
    /// Whether its TXT token was found (it is the user's from then on).
    public var verified: Bool
    /// Whether the last check saw an MX naming this server.
    public var mxConfigured: Bool
    /// The records, in the API's order: the TXT token and the MX at the apex, then the DKIM keys' TXT records; then
    /// the SPF and DMARC records sending needs (not in the API's `dns_records`).
    public var records: [ProDashboardRecord]

    /// Memberwise.
    public init(id: String, domain: String, verified: Bool, mxConfigured: Bool, records: [ProDashboardRecord]) {
        self.id = id
        self.domain = domain
        self.verified = verified
        self.mxConfigured = mxConfigured
        self.records = records
    }
}

/// What a verification found (each record's state is kept with the domain: ``ProDashboardRecord/found``).
public struct ProDashboardVerification: Sendable, Equatable {
    /// The domain's name.
    public var domain: String
    /// Whether the domain is verified now.
    public var verified: Bool
    /// What to do next, or why a lookup got no answer.
    public var message: String?

    /// Memberwise.
    public init(domain: String, verified: Bool, message: String?) {
        self.domain = domain
        self.verified = verified
        self.message = message
    }
}

/// The webhook, never its secret.
public struct ProDashboardWebhook: Sendable, Equatable {
    /// The webhook's id (a UUID).
    public var id: String
    /// Where events are posted.
    public var url: String
    /// The event types it receives.
    public var events: [String]
    /// `active` or `failed`.
    public var status: String
    /// Consecutive failed attempts.
    public var failureCount: Int64
    /// Unix seconds.
    public var createdAt: Int64
    /// The recent delivery attempts, newest first.
    public var deliveries: [ProDashboardDelivery]

    /// Memberwise.
    public init(
        id: String, url: String, events: [String], status: String, failureCount: Int64, createdAt: Int64,
        deliveries: [ProDashboardDelivery]
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.status = status
        self.failureCount = failureCount
        self.createdAt = createdAt
        self.deliveries = deliveries
    }
}

/// One delivery attempt of the webhook.
public struct ProDashboardDelivery: Sendable, Equatable {
    /// Unix seconds.
    public var time: Int64
    /// The event type.
    public var event: String
    /// 1-based.
    public var attempt: Int64
    /// The HTTP status the receiver answered; nil when none came.
    public var statusCode: Int64?
    /// Why it failed, nil after a 2xx.
    public var error: String?

    /// Memberwise.
    public init(time: Int64, event: String, attempt: Int64, statusCode: Int64?, error: String?) {
        self.time = time
        self.event = event
        self.attempt = attempt
        self.statusCode = statusCode
        self.error = error
    }
}

/// The SMTP sandbox.
public struct ProDashboardSandbox: Sendable, Equatable {
    /// Where its captures are kept (the mailbox the web inbox lists as "Sandbox").
    public var address: String
    /// How many captures it holds.
    public var captures: Int
    /// Bytes they take.
    public var used: Int64

    /// Memberwise.
    public init(address: String, captures: Int, used: Int64) {
        self.address = address
        self.captures = captures
        self.used = used
    }
}
