import MailSandbox
import MailboxAccounts
import Webhooks

/// What the Pro dashboard reads and does, over the Mail.td surface: the very functions its Pro API routes call (tokens
/// and domains in `MailboxAccounts`, the webhook in `Webhooks`, the sandbox in `MailSandbox`), so every rule and limit
/// of the API applies; its refusals become the dashboard's. Every function takes the Pro user's id and acts on that
/// user's things only: another user's id is ``ProDashboardError/notFound``.
struct MailboxProDashboard: Sendable {
    let surface: MailboxService
    let webhooks: WebhooksController
    let sandboxes: MailSandbox

    func accounts(proUserID: String) async throws -> [ProDashboardAccount] {
        try await surface.accountUsage(proUserID: proUserID).map {
            ProDashboardAccount(address: $0.address, used: $0.used, quota: $0.quota)
        }
    }

    func tokens(proUserID: String) async throws -> [ProDashboardToken] {
        try await Self.answering {
            try await surface.apiTokens(proUserID: proUserID).map {
                ProDashboardToken(
                    id: $0.id, name: $0.name, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt,
                    revokedAt: $0.revokedAt)
            }
        }
    }

    func createToken(proUserID: String, name: String, client: String?) async throws -> String {
        try await Self.answering {
            try await surface.createAPIToken(proUserID: proUserID, name: name, client: client).token
        }
    }

    func revokeToken(id: String, proUserID: String, client: String?) async throws {
        try await Self.answering { try await surface.revokeAPIToken(id: id, proUserID: proUserID, client: client) }
    }

    func domains(proUserID: String) async throws -> [ProDashboardDomain] {
        try await Self.answering {
            try await surface.domains(proUserID: proUserID).map { domain in
                ProDashboardDomain(
                    id: domain.claim.id, domain: domain.claim.domain, verified: domain.claim.isVerified,
                    mxConfigured: domain.claim.mxConfigured,
                    records: (domain.records + domain.policies).map(Self.record))
            }
        }
    }

    func addDomain(_ domain: String, proUserID: String, client: String?) async throws -> String {
        try await Self.answering {
            try await surface.addDomain(domain, proUserID: proUserID, client: client).claim.domain
        }
    }

    func verifyDomain(id: String, proUserID: String, client: String?) async throws -> ProDashboardVerification {
        try await Self.answering {
            let result = try await surface.verifyDomain(id: id, proUserID: proUserID, client: client)
            return ProDashboardVerification(
                domain: result.claim.domain, verified: result.claim.isVerified, message: result.message)
        }
    }

    func deleteDomain(id: String, proUserID: String, client: String?) async throws {
        try await Self.answering { try await surface.deleteDomain(id: id, proUserID: proUserID, client: client) }
    }

    func webhook(proUserID: String) async throws -> ProDashboardWebhook? {
        try await Self.answering {
            let user = try await activeUser(proUserID)
            guard let webhook = try await webhooks.webhooks(ownerID: user).first else { return nil }
            let deliveries = try await webhooks.deliveries(webhookID: webhook.id, ownerID: user).map {
                ProDashboardDelivery(
                    time: $0.createdMS / 1000, event: $0.eventType, attempt: $0.attempt, statusCode: $0.statusCode,
                    error: $0.error)
            }
            return ProDashboardWebhook(
                id: webhook.id, url: webhook.url, events: webhook.events, status: webhook.status,
                failureCount: webhook.failureCount, createdAt: webhook.createdAt, deliveries: deliveries)
        }
    }

    func createWebhook(proUserID: String, url: String, events: [String]) async throws -> String {
        try await Self.answering {
            try await webhooks.createWebhook(
                ownerID: activeUser(proUserID), url: url, events: events, now: surface.now()
            ).secret
        }
    }

    func rotateWebhook(id: String, proUserID: String) async throws -> String {
        try await Self.answering { try await webhooks.rotateWebhook(id: id, ownerID: activeUser(proUserID)).secret }
    }

    func deleteWebhook(id: String, proUserID: String) async throws {
        try await Self.answering { try await webhooks.deleteWebhook(id: id, ownerID: activeUser(proUserID)) }
    }

    func sandbox(proUserID: String) async throws -> ProDashboardSandbox? {
        try await Self.answering {
            guard let captures = try await sandboxes.sandboxCaptures(proUserID: activeUser(proUserID)) else {
                return nil
            }
            return ProDashboardSandbox(address: captures.address, captures: captures.count, used: captures.used)
        }
    }

    /// The id of the active Pro user `id` (the surface's rule), as the webhook and sandbox routes ask for theirs.
    private func activeUser(_ id: String) async throws -> String {
        guard try await surface.activeProUserEmail(id) != nil else { throw ProDashboardError.notFound }
        return id
    }

    private static func record(_ record: ProDomainRecord) -> ProDashboardRecord {
        ProDashboardRecord(
            type: record.type, host: record.host, value: record.value, priority: record.priority, found: record.ok)
    }

    /// Runs `body`, answering the Mail.td API's refusals with the dashboard's; anything else goes on (a 500 page).
    private static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as MailboxError {
            switch error {
            case .notFound, .invalidOrExpiredToken: throw ProDashboardError.notFound
            case .invalidRequest: throw ProDashboardError.invalidName
            case .invalidDomain: throw ProDashboardError.invalidDomain
            case .domainAlreadyExists: throw ProDashboardError.domainTaken
            case .domainLimitReached: throw ProDashboardError.domainLimitReached
            case .domainExpired: throw ProDashboardError.domainExpired
            case .domainInUse: throw ProDashboardError.domainInUse
            case .invalidURL: throw ProDashboardError.invalidURL
            case .invalidEvents: throw ProDashboardError.invalidEvents
            case .webhookLimitReached: throw ProDashboardError.webhookLimitReached
            default: throw error
            }
        }
    }
}
