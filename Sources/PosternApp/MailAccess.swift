import AgentAuth
import Audit
import BrowserPages
import MailSignIn
import MailboxAccounts
import OAuthGrants

/// Mail.td's accounts and the one owner of mail credentials, built once by the runtime (issue 82) before any door:
/// Mail.td's REST API, mail.tm's and mail.cx's APIs are given the accounts; IMAP, POP3 and the web inbox's Mail.td
/// sign-in the credentials' owner.
struct MailAccess {
    let accounts: MailboxAccountService
    let signIn: MailSignIn

    /// - Parameter audit: the trail every surface records to.
    init(_ context: SurfaceContext, audit: AuditTrail) {
        let configuration = context.configuration
        accounts = Surfaces.mailboxAccounts(
            configuration, issuer: context.identity.issuer, keys: context.keys, database: context.database,
            mail: context.mail.store, pool: context.pool, resolver: context.resolver,
            customDomains: context.mail.domains, clock: context.clock, sandboxPort: context.sandboxPort, audit: audit)
        let owners = OwnerAccess(context, grants: OAuthGrantStore(database: context.database, observer: context.grantCache))
        let agents = AgentAPIKeyAuthenticator(
            accounts: AgentAccountStore(database: context.database), inboxDomain: configuration.agent.inboxDomain,
            directory: owners.agentInboxes)
        signIn = MailSignIn(
            accounts: accounts, agents: MailSignIn.AgentKeys(prefix: AgentAPIKey.prefix, authenticator: agents),
            owners: MailSignIn.OwnerTokens(verifier: owners.verifier, principals: owners.principals),
            directory: context.mail.directory,
            throttle: SignInThrottle(database: context.database, backoff: configuration.webInbox.backoff), audit: audit,
            appPasswords: Surfaces.appPasswords(configuration, database: context.database), clock: context.clock)
    }
}
