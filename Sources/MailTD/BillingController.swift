import MailboxAccounts
import MailboxRoutes
import HTTP1
import JSON
import ServerKit

/// Mail.td's billing endpoints, answered honestly for a self-hosted server: Pro is granted by the operator, so there
/// is no subscription to cancel or resume and no payment portal unless the operator names a page.
struct BillingController: MailboxController {
    let surface: MailboxService

    /// Adds the resource's routes to `router`.
    func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        router.add(.GET, "/api/user/subscription/status", deferred(.general, subscriptionStatus))
        router.add(.POST, "/api/user/subscription/cancel", bodyLimit: limit, deferred(.general, subscriptionChange))
        router.add(.POST, "/api/user/subscription/resume", bodyLimit: limit, deferred(.general, subscriptionChange))
        router.add(.POST, "/api/user/billing/portal", bodyLimit: limit, deferred(.general, billingPortal))
    }

    /// `GET /api/user/subscription/status`: active for an active Pro user, never a scheduled cancel; `cancel_mode`
    /// `none` says a cancel cannot happen. `provider` and `plan` are extra keys every SDK ignores.
    func subscriptionStatus(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        return MailboxJSON.response(
            .ok,
            [
                ("status", .string(user.status == "active" ? "active" : "")), ("cancel_mode", "none"),
                ("scheduled_cancel_at", .null), ("provider", "self_hosted"), ("plan", "pro"),
            ])
    }

    /// `POST /api/user/subscription/cancel` and `.../resume`: 501 `billing_not_available`, after authentication, so
    /// that an SDK raises rather than reports a change that did not happen.
    func subscriptionChange(_ call: MailboxCall) async throws -> HTTPResponse {
        _ = try await authorizer.requireProUser(call.bearer)
        throw MailboxError.billingNotAvailable
    }

    /// `POST /api/user/billing/portal`: the operator's page (`POSTERN_BILLING_PORTAL_URL`), or 501.
    func billingPortal(_ call: MailboxCall) async throws -> HTTPResponse {
        _ = try await authorizer.requireProUser(call.bearer)
        guard let url = configuration.billingPortalURL else { throw MailboxError.billingNotAvailable }
        return MailboxJSON.response(.ok, [("url", .string(url))])
    }
}
