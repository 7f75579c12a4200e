import AppPasswords
import HTTP1
import MailSandbox
import MailboxAccounts
import MailboxRoutes
import ServerKit
import WebInbox
import Webhooks

/// The Pro dashboard (`/inbox/dashboard`): a signed-in Pro user's accounts, API tokens, custom domains, webhook and
/// SMTP sandbox, through the Mail.td API's own Pro rules (``MailboxProDashboard``), in the web inbox's frame and session
/// (``WebInboxService/proUserRoute(_:)``). Anyone else, signed in or not, gets the same 404 on every dashboard route.
/// Every post is CSRF-checked and answers with a 303 to the dashboard, whose next `GET` shows what it did once (the web
/// inbox's one-shot notices): a new token or secret is never in a URL or cookie.
public struct ProDashboardController: Sendable {
    typealias Call = WebInboxProUserCall
    typealias DashboardHandler = @Sendable (Call, MailboxProDashboard) async throws -> HTTPResponse

    let inbox: WebInboxService
    let port: MailboxProDashboard
    /// "Sign-in methods" (the Pro mount of the sign-in methods); nil shows none.
    let signInMethods: ProSignInMethods?
    /// The app passwords (issue 87); nil shows none and makes none.
    let appPasswords: AppPasswordStore?

    /// - Parameters:
    ///   - inbox: the web inbox whose sessions and frame the dashboard is served in (built with `linksDashboard`).
    ///   - surface: the Mail.td surface: accounts, API tokens, custom domains.
    ///   - webhooks: the Pro users' webhooks.
    ///   - sandboxes: the Pro users' SMTP sandboxes.
    ///   - signInMethods: the Pro users' sign-in methods, whose section the dashboard shows; nil shows none.
    ///   - appPasswords: the app passwords, whose section the dashboard shows; nil shows none.
    public init(
        inbox: WebInboxService, surface: MailboxService, webhooks: WebhooksController, sandboxes: MailSandbox,
        signInMethods: ProSignInMethods? = nil, appPasswords: AppPasswordStore? = nil
    ) {
        self.inbox = inbox
        self.signInMethods = signInMethods
        self.appPasswords = appPasswords
        port = MailboxProDashboard(surface: surface, webhooks: webhooks, sandboxes: sandboxes)
    }

    /// The dashboard's path.
    static let dashboardPath = WebInboxService.dashboardPath

    /// Adds `GET /inbox/dashboard` and its posts: `tokens` (`name`), `tokens/{id}/revoke`, `domains` (`domain`),
    /// `domains/{id}/verify`, `domains/{id}/delete`, `webhook` (`url`, `events`), `webhook/{id}/rotate`,
    /// `webhook/{id}/delete`.
    public func register(into router: inout ContextRouter) {
        let limit = inbox.configuration.bodyLimit
        let path = Self.dashboardPath
        router.add(.GET, path, dashboard { [self] in try await dashboardPage($0, $1) })
        router.add(.POST, path + "/tokens", bodyLimit: limit, dashboard { [self] in try await createToken($0, $1) })
        router.add(
            .POST, path + "/tokens/{id}/revoke", bodyLimit: limit, dashboard { [self] in try await revokeToken($0, $1) }
        )
        router.add(.POST, path + "/domains", bodyLimit: limit, dashboard { [self] in try await addDomain($0, $1) })
        router.add(
            .POST, path + "/domains/{id}/verify", bodyLimit: limit,
            dashboard { [self] in try await verifyDomain($0, $1) })
        router.add(
            .POST, path + "/domains/{id}/delete", bodyLimit: limit,
            dashboard { [self] in try await deleteDomain($0, $1) })
        router.add(
            .POST, path + "/app-passwords", bodyLimit: limit, dashboard { [self] in try await createAppPassword($0, $1) })
        router.add(
            .POST, path + "/app-passwords/{id}/revoke", bodyLimit: limit,
            dashboard { [self] in try await revokeAppPassword($0, $1) })
        router.add(.POST, path + "/webhook", bodyLimit: limit, dashboard { [self] in try await createWebhook($0, $1) })
        router.add(
            .POST, path + "/webhook/{id}/rotate", bodyLimit: limit,
            dashboard { [self] in try await rotateWebhook($0, $1) })
        router.add(
            .POST, path + "/webhook/{id}/delete", bodyLimit: limit,
            dashboard { [self] in try await deleteWebhook($0, $1) })
    }

    /// A dashboard route: the web inbox's Pro user route (the 404 for anyone else, the CSRF check); a 404 too for
    /// what is not the user's.
    func dashboard(_ handler: @escaping DashboardHandler) -> ContextRouteHandler {
        inbox.proUserRoute { [port] call in
            do {
                return try await handler(call, port)
            } catch ProDashboardError.notFound {
                return Call.notFound()
            }
        }
    }

    /// The dashboard, with what the last post did (once). Ids: `#accounts` (`.account`, `.address`), `#tokens`
    /// (`.token`, `.name`), `#create-token-form`, `#token-shown`, `#add-domain-form`, `#domain-records` (`.record`:
    /// `.type`, `.host`, `.value`, `.state`), `#webhook`, `#create-webhook-form`, `#webhook-secret-shown`,
    /// `#deliveries`, `#sandbox`, `#notice`, `#error`.
    func dashboardPage(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        let user = call.proUserID
        let webhook = try await port.webhook(proUserID: user)
        let flash = try await call.takeFlash() ?? WebInboxFlash()
        let accounts = try await port.accounts(proUserID: user)
        var appPasswords: ProAppPasswordsSection?
        if let store = self.appPasswords {
            appPasswords = ProAppPasswordsSection(
                passwords: try await store.list(.proUser(user)), accounts: accounts.map(\.address),
                shown: flash.appPassword)
        }
        let page = ProDashboardPage(
            accounts: accounts, tokens: try await port.tokens(proUserID: user),
            domains: try await port.domains(proUserID: user), webhook: webhook?.webhook,
            deliveries: webhook?.deliveries ?? [], sandbox: try await port.sandbox(proUserID: user),
            flash: flash, signInMethods: try await signInMethods?.section(call) ?? .empty,
            appPasswords: appPasswords, twoStep: inbox.offersTwoStep)
        // "Sign-in methods" loads the passkey forms' script, from this origin only.
        return HTMLPage.response(.ok, page.render(call), policy: signInMethods?.offersPasskeys == true ? .script(.self) : .page)
    }

    /// `POST .../tokens` (`name`): the token shown once.
    func createToken(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        let name = call.request.formFields()["name"] ?? ""
        return try await answer(call) {
            let token = try await port.createToken(proUserID: call.proUserID, name: name, client: call.client)
            return WebInboxFlash(
                PageNotice("Token created. Copy it now: it is shown this once.", .success), token: token)
        }
    }

    /// `POST .../tokens/{id}/revoke`.
    func revokeToken(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        try await answer(call) {
            try await port.revokeToken(id: call.id, proUserID: call.proUserID, client: call.client)
            return WebInboxFlash.success("Token revoked: it no longer works.")
        }
    }

    /// `POST .../domains` (`domain`).
    func addDomain(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        let typed = call.request.formFields()["domain"] ?? ""
        return try await answer(call) {
            let domain = try await port.addDomain(typed, proUserID: call.proUserID, client: call.client)
            return WebInboxFlash.success("Added \(domain). Publish its records below, then verify.")
        }
    }

    /// `POST .../domains/{id}/verify`: the records looked up now; the page the answer leads to shows each one's
    /// state as the lookup kept it with the domain.
    func verifyDomain(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        try await answer(call) {
            let result = try await port.verifyDomain(id: call.id, proUserID: call.proUserID, client: call.client)
            let domain = result.claim.domain
            var words = result.claim.isVerified ? "\(domain) is verified." : "\(domain) is still pending."
            if let message = result.message { words += " " + message }
            // A domain still pending was checked but is not verified: taken, not done as asked.
            return result.claim.isVerified ? WebInboxFlash.success(words) : WebInboxFlash.warning(words)
        }
    }

    /// `POST .../domains/{id}/delete`.
    func deleteDomain(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        try await answer(call) {
            try await port.deleteDomain(id: call.id, proUserID: call.proUserID, client: call.client)
            return WebInboxFlash.success("Domain removed: its mail is refused from now on.")
        }
    }

    /// `POST .../webhook` (`url`, `events`): the signing secret shown once.
    func createWebhook(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        let fields = call.request.formFields()
        let events = fields["events"].map { [$0] } ?? []
        return try await answer(call) {
            let secret = try await port.createWebhook(
                proUserID: call.proUserID, url: fields["url"] ?? "", events: events)
            return WebInboxFlash(
                PageNotice("Webhook created. Copy its signing secret now: it is shown this once.", .success),
                webhookSecret: secret)
        }
    }

    /// `POST .../webhook/{id}/rotate`: the new secret shown once; the old one stops signing at once.
    func rotateWebhook(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        try await answer(call) {
            let secret = try await port.rotateWebhook(id: call.id, proUserID: call.proUserID)
            return WebInboxFlash(
                PageNotice(
                    "Secret rotated: the old one no longer signs. Copy the new one now: it is shown this once.", .success),
                webhookSecret: secret)
        }
    }

    /// `POST .../webhook/{id}/delete`.
    func deleteWebhook(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        try await answer(call) {
            try await port.deleteWebhook(id: call.id, proUserID: call.proUserID)
            return WebInboxFlash.success("Webhook deleted.")
        }
    }

    /// Runs a post's `action`, keeps its flash (or the refusal's words in `#error`) for the session, and answers with
    /// a 303 to the dashboard. Not the user's: the 404 (``dashboard(_:)``).
    func answer(_ call: Call, _ action: () async throws -> WebInboxFlash) async throws
        -> HTTPResponse
    {
        let flash: WebInboxFlash
        do {
            flash = try await action()
        } catch let error as ProDashboardError where error != .notFound {
            flash = WebInboxFlash.error(Self.words(error))
        }
        try await call.put(flash)
        return HTMLPage.redirect(to: Self.dashboardPath)
    }

    /// What the page says for a refusal.
    static func words(_ error: ProDashboardError) -> String {
        switch error {
        case .notFound: "There is no such token, domain or webhook."
        case .invalidName: "A token's name is at most 100 characters."
        case .invalidDomain: "That is not a domain name."
        case .domainTaken: "That domain is already in use."
        case .domainLimitReached: "You have as many domains as you may: remove one first."
        case .domainExpired: "That domain was not verified in time and was removed: add it again."
        case .domainInUse: "Accounts are still on that domain: delete them first."
        case .invalidURL: "A webhook's URL must be an https URL of a public host, without a user name or fragment."
        case .invalidEvents: "That is not an event a webhook can receive."
        case .webhookLimitReached: "You have a webhook already: delete it first."
        }
    }
}
