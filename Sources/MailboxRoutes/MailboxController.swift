import MailboxAccounts
import Audit
import CustomDomains
import HTTP1
import MailStore
import PasswordHashing
import ServerKit
import Storage

/// One resource of the Mail.td surface (Hummingbird's `RouteCollection` shape): a value over the shared
/// ``MailboxService`` (its stores, bearer rules, rate limits and answers) that adds its own routes.
package protocol MailboxController: Sendable {
    /// The surface the routes run on.
    var surface: MailboxService { get }
    /// Adds the resource's routes to `router`.
    func register(on router: inout ContextRouter)
}

/// What a controller reads of its surface, by the names the handlers use.
extension MailboxController {
    package var accounts: MailboxAccountService { surface.accounts }
    package var configuration: MailboxConfiguration { surface.configuration }
    package var store: MailboxStore { surface.store }
    package var mail: MailStore { surface.mail }
    package var ledger: ChallengeLedger { surface.ledger }
    package var hasher: PasswordHasher { surface.hasher }
    package var credentials: MailboxCredentials { surface.credentials }
    package var tokens: MailboxTokens { surface.tokens }
    package var customDomains: CustomDomains { surface.customDomains }
    package var authorizer: MailboxAuthorizer { surface.authorizer }
    package var challenges: MailboxChallenges { surface.challenges }
    package var metrics: MailboxMetrics { surface.metrics }
    package var audit: AuditTrail { surface.audit }
    package func clock() -> Int64 { surface.clock() }

    package func immediate(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) throws -> HTTPResponse
    ) -> ContextRouteHandler {
        surface.immediate(policy, handler)
    }

    package func deferred(
        _ policy: MailboxRatePolicy, _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        surface.deferred(policy, handler)
    }
}
