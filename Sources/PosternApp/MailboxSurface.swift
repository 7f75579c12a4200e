import AgentAuth
import MailSandbox
import MailTD
import MailboxAccounts
import MailboxRoutes
import OperatorAPI
import SecondFactors
import ServerKit
import Webhooks

/// The Mail.td surface and what hangs on its accounts: its REST API, the operator's API, its webhooks and its
/// sandboxes.
struct MailboxSurface {
    let service: MailboxService
    let webhooks: WebhooksController
    let sandbox: MailSandbox
    /// Pro users' second factors (issue 88; migration 0081), which the web inbox asks for and whose holders'
    /// passwords make no Pro JWT here.
    let proSecondFactors: SecondFactorStore

    /// Adds the Mail.td API's, the webhooks' and the sandboxes' routes.
    /// - Throws: storage or crypto errors from the mailbox challenge secret.
    static func register(
        into router: inout ContextRouter, _ context: SurfaceContext, accounts: MailboxAccountService
    ) throws -> MailboxSurface {
        let (database, mail) = (context.database, context.mail)
        let proSecondFactors = SecondFactorStore(
            .proUsers, database: database,
            sealing: context.sealer.map { SecretSealing($0, name: "a Pro user's TOTP secret") }, clock: context.clock)
        let mailbox = try Surfaces.mailboxService(
            accounts: accounts, ledger: context.ledger, proSecondFactors: proSecondFactors,
            webInbox: context.configuration.webInbox, logger: context.logger)
        MailTDAPI(surface: mailbox).register(into: &router)
        // The operator's `?reset=accounts` removes the agents' accounts too.
        OperatorController(
            surface: mailbox, accountsBesideMailboxes: [AgentAccountReset(store: AgentAccountStore(database: database))]
        ).register(on: &router)
        let webhooks = WebhooksController(surface: mailbox, store: WebhookStore(database: database))
        webhooks.register(on: &router)
        let sandbox = MailSandbox(surface: mailbox, store: SandboxStore(database: database), mail: mail.store)
        sandbox.register(on: &router)
        ChaosController(surface: mailbox, chaos: context.chaos).register(on: &router)
        return MailboxSurface(
            service: mailbox, webhooks: webhooks, sandbox: sandbox, proSecondFactors: proSecondFactors)
    }
}
