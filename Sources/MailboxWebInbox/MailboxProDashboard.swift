import MailSandbox
import MailboxAccounts
import MailboxRoutes
import Webhooks

/// What the Pro dashboard reads and does, over the Mail.td surface: the very functions its Pro API routes call (tokens
/// and domains in `MailboxAccounts`, the webhook in `Webhooks`, the sandbox in `MailSandbox`), so every rule and limit
/// of the API applies; its refusals become the dashboard's. Every function takes the Pro user's id and acts on that
/// user's things only: another user's id is ``ProDashboardError/notFound``.
struct MailboxProDashboard: Sendable {
    let surface: MailboxService
    let webhooks: WebhooksController
    let sandboxes: MailSandbox

    /// The user's accounts, oldest first, with their usage.
    func accounts(proUserID: String) async throws -> [(address: String, used: Int64, quota: Int64)] {
        try await surface.accounts.accountUsage(proUserID: proUserID)
    }

    /// The user's API tokens, revoked ones too, without secrets.
    func tokens(proUserID: String) async throws -> [ProTokenInfo] {
        try await Self.answering { try await surface.accounts.apiTokens(proUserID: proUserID) }
    }

    /// A new `tm_pro_` token named `name` (empty: the API's default): the token, to show once.
    func createToken(proUserID: String, name: String, client: String?) async throws -> String {
        try await Self.answering {
            try await surface.accounts.createAPIToken(proUserID: proUserID, name: name, client: client).token
        }
    }

    /// Revokes the user's token `id`.
    func revokeToken(id: String, proUserID: String, client: String?) async throws {
        try await Self.answering { try await surface.accounts.revokeAPIToken(id: id, proUserID: proUserID, client: client) }
    }

    /// The user's custom domains, oldest first, each with the records to publish and those sending needs.
    func domains(proUserID: String) async throws -> [ProDomain] {
        try await Self.answering { try await surface.accounts.domains(proUserID: proUserID) }
    }

    /// Claims `domain` for the user: the domain as stored (lower-cased).
    func addDomain(_ domain: String, proUserID: String, client: String?) async throws -> String {
        try await Self.answering {
            try await surface.accounts.addDomain(domain, proUserID: proUserID, client: client).claim.domain
        }
    }

    /// Looks the records of the user's domain `id` up now.
    func verifyDomain(id: String, proUserID: String, client: String?) async throws -> ProDomainVerification {
        try await Self.answering { try await surface.accounts.verifyDomain(id: id, proUserID: proUserID, client: client) }
    }

    /// Removes the user's domain `id`.
    func deleteDomain(id: String, proUserID: String, client: String?) async throws {
        try await Self.answering { try await surface.accounts.deleteDomain(id: id, proUserID: proUserID, client: client) }
    }

    /// The user's webhook (one at most) with its recent delivery attempts, newest first; nil when there is none.
    func webhook(proUserID: String) async throws -> (webhook: WebhookSummary, deliveries: [WebhookDeliveryRecord])? {
        try await Self.answering {
            let user = try await activeUser(proUserID)
            guard let webhook = try await webhooks.webhooks(ownerID: user).first else { return nil }
            return (webhook, try await webhooks.deliveries(webhookID: webhook.id, ownerID: user))
        }
    }

    /// Makes the user's webhook: its signing secret, to show once.
    func createWebhook(proUserID: String, url: String, events: [String]) async throws -> String {
        try await Self.answering {
            try await webhooks.createWebhook(
                ownerID: activeUser(proUserID), url: url, events: events, now: surface.accounts.now()
            ).secret
        }
    }

    /// A new signing secret for the user's webhook `id` (the old one stops at once): the secret, to show once.
    func rotateWebhook(id: String, proUserID: String) async throws -> String {
        try await Self.answering { try await webhooks.rotateWebhook(id: id, ownerID: activeUser(proUserID)).secret }
    }

    /// Deletes the user's webhook `id`.
    func deleteWebhook(id: String, proUserID: String) async throws {
        try await Self.answering { try await webhooks.deleteWebhook(id: id, ownerID: activeUser(proUserID)) }
    }

    /// The user's SMTP sandbox, nil before its first SMTP connection.
    func sandbox(proUserID: String) async throws -> (address: String, count: Int, used: Int64)? {
        try await Self.answering { try await sandboxes.sandboxCaptures(proUserID: activeUser(proUserID)) }
    }

    /// The id of the active Pro user `id` (the surface's rule), as the webhook and sandbox routes ask for theirs.
    private func activeUser(_ id: String) async throws -> String {
        guard try await surface.accounts.activeProUserEmail(id) != nil else { throw ProDashboardError.notFound }
        return id
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
