import MailboxAccounts
import MailboxRoutes
import ServerKit

/// Mail.td's REST API (CONTRACT.md 2.2), a door over the accounts' model: one controller per resource (accounts, Pro
/// users, their API tokens, their domains, billing, messages) on the routes' shared ``MailboxService``; their rate
/// limits charge the context's client. The webhooks (`Webhooks`), the sandbox (`MailSandbox`) and the operator's API
/// (`OperatorAPI`) add their own routes on the same service.
public struct MailTDAPI: Sendable {
    let surface: MailboxService

    /// The API over `surface`.
    public init(surface: MailboxService) {
        self.surface = surface
    }

    /// Adds the API's routes to `router`.
    public func register(into router: inout ContextRouter) {
        AccountsController(surface: surface).register(on: &router)
        ProUsersController(surface: surface).register(on: &router)
        ProTokensController(surface: surface).register(on: &router)
        DomainsController(surface: surface).register(on: &router)
        BillingController(surface: surface).register(on: &router)
        MessagesController(surface: surface).register(on: &router)
    }
}
