// What the Pro dashboard shows, as the Mail.td API's Pro functions answer it (MailboxProDashboard), and why they refuse.

/// Why the dashboard was refused: the Mail.td API's refusals, which the page words for a person.
enum ProDashboardError: Error, Sendable, Equatable {
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
struct ProDashboardAccount: Sendable, Equatable {
    /// Its address.
    var address: String
    /// Bytes its mail takes.
    var used: Int64
    /// Its quota in bytes.
    var quota: Int64
}

/// One API token, never its secret.
struct ProDashboardToken: Sendable, Equatable {
    /// The token's id (a UUID): what revokes it.
    var id: String
    /// The name its user gave it.
    var name: String
    /// Unix seconds.
    var createdAt: Int64
    /// Unix seconds; nil before its first use.
    var lastUsedAt: Int64?
    /// Unix seconds; nil while it works.
    var revokedAt: Int64?
}

/// One DNS record to publish, as the API gives it.
struct ProDashboardRecord: Sendable, Equatable {
    /// `TXT` or `MX`.
    var type: String
    /// The record's full name: the apex, or `<selector>._domainkey.<domain>`.
    var host: String
    /// What it must hold.
    var value: String
    /// The MX preference; nil for TXT.
    var priority: Int64?
    /// Whether the last lookup of it found it (kept with the domain); nil when none was made.
    var found: Bool?
}

/// One custom domain with the records to publish.
struct ProDashboardDomain: Sendable, Equatable {
    /// The claim's id (a UUID).
    var id: String
    /// Lower-cased.
    var domain: String
    /// Whether its TXT token was found (it is the user's from then on).
    var verified: Bool
    /// Whether the last check saw an MX naming this server.
    var mxConfigured: Bool
    /// The records, in the API's order: the TXT token and the MX at the apex, then the DKIM keys' TXT records; then
    /// the SPF and DMARC records sending needs (not in the API's `dns_records`).
    var records: [ProDashboardRecord]
}

/// What a verification found (each record's state is kept with the domain: ``ProDashboardRecord/found``).
struct ProDashboardVerification: Sendable, Equatable {
    /// The domain's name.
    var domain: String
    /// Whether the domain is verified now.
    var verified: Bool
    /// What to do next, or why a lookup got no answer.
    var message: String?
}

/// The webhook, never its secret.
struct ProDashboardWebhook: Sendable, Equatable {
    /// The webhook's id (a UUID).
    var id: String
    /// Where events are posted.
    var url: String
    /// The event types it receives.
    var events: [String]
    /// `active` or `failed`.
    var status: String
    /// Consecutive failed attempts.
    var failureCount: Int64
    /// Unix seconds.
    var createdAt: Int64
    /// The recent delivery attempts, newest first.
    var deliveries: [ProDashboardDelivery]
}

/// One delivery attempt of the webhook.
struct ProDashboardDelivery: Sendable, Equatable {
    /// Unix seconds.
    var time: Int64
    /// The event type.
    var event: String
    /// 1-based.
    var attempt: Int64
    /// The HTTP status the receiver answered; nil when none came.
    var statusCode: Int64?
    /// Why it failed, nil after a 2xx.
    var error: String?
}

/// The SMTP sandbox.
struct ProDashboardSandbox: Sendable, Equatable {
    /// Where its captures are kept (the mailbox the web inbox lists as "Sandbox").
    var address: String
    /// How many captures it holds.
    var captures: Int
    /// Bytes they take.
    var used: Int64
}
