import Audit
import CustomDomains
import HTTP1
import MailStore
import PasswordHashing
import ServerKit
import Storage

/// One resource of the Mail.td surface (Hummingbird's `RouteCollection` shape): a value over the shared
/// ``MailboxService`` (its stores, bearer rules, rate limits and answers) that adds its own routes.
protocol MailboxController: Sendable {
    /// The surface the routes run on.
    var surface: MailboxService { get }
    /// Adds the resource's routes to `router`.
    func register(on router: inout ContextRouter)
}

/// What a controller reads of its surface, by the names the handlers use.
extension MailboxController {
    var configuration: MailboxConfiguration { surface.configuration }
    var store: MailboxStore { surface.store }
    var mail: MailStore { surface.mail }
    var ledger: ChallengeLedger { surface.ledger }
    var hasher: PasswordHasher { surface.hasher }
    var credentials: MailboxCredentials { surface.credentials }
    var tokens: MailboxTokens { surface.tokens }
    var authorizer: MailboxAuthorizer { surface.authorizer }
    var challenges: MailboxChallenges { surface.challenges }
    var metrics: MailboxMetrics { surface.metrics }
    var audit: AuditTrail { surface.audit }
    var customDomains: CustomDomains { surface.customDomains }
    func clock() -> Int64 { surface.clock() }

    func immediate(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) throws -> HTTPResponse
    ) -> ContextRouteHandler {
        surface.immediate(policy, handler)
    }

    func deferred(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        surface.deferred(policy, handler)
    }
}
