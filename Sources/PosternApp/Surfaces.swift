import AgentAuth
import AppPasswords
import Audit
import ComputePool
import CustomDomains
import DNS
import Directory
import EmailAddresses
import JWT
import Logging
import Fetch
import MailDelivery
import MailStore
import MailSandbox
import MailTransfer
import MailCX
import MailboxAccounts
import MailboxRoutes
import OAuthServer
import OutboundQueue
import OutboundSocket
import Owners
import RemoteHashAuth
import SecondFactors
import ServerKit
import Storage
import WebInbox
import Webhooks

/// Builds the API surfaces from the configuration's parts and adds their routes.
package enum Surfaces {
    /// Adds every surface family's routes, in this order; returns the 404/405 renderers of the surfaces that own a
    /// path prefix. Each family is built and registered in its own file (`AgentSurface`, `MailboxSurface`, ...); what
    /// several share is built once before them (``SharedSurfaceParts``). A new surface is one line here.
    /// - Parameter context: what the runtime built once and every surface is given.
    /// - Throws: storage or crypto errors from a surface's start-up (the mailbox challenge secret).
    static func register(into router: inout ContextRouter, _ context: SurfaceContext, access: MailAccess) throws
        -> (unmatched: [PosternResponder.UnmatchedRenderer], sandbox: MailSandbox)
    {
        let shared = try SharedSurfaceParts(context)
        let agent = AgentSurface.register(into: &router, context)
        let mailbox = try MailboxSurface.register(into: &router, context, accounts: access.accounts)
        let tempMail = TempMailSurface.register(into: &router, context, accounts: access.accounts)
        MailpitSurface.register(into: &router, context, sandbox: mailbox.sandbox)
        MailosaurSurface.register(into: &router, context, sandbox: mailbox.sandbox)
        let remote = try RemoteHashSurface.register(into: &router, context)
        let owners = try OwnerSurface.register(into: &router, context, shared)
        let oauth = try OAuthSurface.register(into: &router, context, shared, owners: owners.service)
        let jmap = JMAPSurface.register(into: &router, context, shared, accounts: access.accounts)
        try WebInboxSurface.register(
            into: &router, context, shared, owners: owners, mailbox: mailbox, credentials: access.signIn, jmap: jmap)
        let mcp = try MCPSurface.register(into: &router, context, shared, jmap: jmap)
        MailClientSetupSurface.register(into: &router, context)
        GuideSurface.register(
            into: &router, context, agent: agent.configuration, mailbox: mailbox.service.configuration, remote: remote,
            mcp: mcp, oauth: oauth.configuration)
        return (
            [
                PosternResponder.UnmatchedRenderer(prefix: "/api/v1/") { agent.unmatchedResponse($0) },
                PosternResponder.UnmatchedRenderer(prefix: "/oauth/") { oauth.unmatchedResponse($0) },
            ] + tempMail, mailbox.sandbox
        )
    }

    /// The mail store and who may receive: shared by SMTP, JMAP, the sandbox, the Mail.td surface and `postern mail
    /// deliver`. Its deliveries queue webhook events in their own transaction (``WebhookArrivals``).
    package struct LocalMail {
        package let store: MailStore
        /// The one custom-domain model: the claims the directory reads and the surfaces add, check and delete.
        package let domains: CustomDomains
        package let directory: LocalDirectory
        package let delivery: LocalDelivery
        /// The outbound queue: JMAP's submissions and what leaves.
        package let outbound: OutboundQueue
    }

    /// - Parameters:
    ///   - changes: who waits for mail to change; the runtime's one stream (a command's own otherwise).
    ///   - domains: the one custom-domain model, from ``customDomains(database:signingKeys:)``: the runtime's, or a
    ///     command's own, which makes no DKIM keys.
    package static func localMail(
        _ c: PosternConfiguration, database: any SQLDatabase, changes: MailChanges = MailChanges(),
        domains: CustomDomains, clock: @escaping @Sendable () -> Int64
    ) -> LocalMail {
        let store = MailStore(database: database, changes: changes, arrivals: WebhookArrivals())
        let directory = localDirectory(c, database: database, claims: domains)
        let policy = RecipientPolicy(
            delimiters: c.recipients.recipientDelimiter,
            catchAll: c.recipients.acceptAny ? RecipientPolicy.catchAll(quota: c.recipients.catchAllQuota) : nil)
        let delivery = LocalDelivery(
            directory: directory, store: store, maximumMessageBytes: c.smtp.maxMessageBytes, policy: policy,
            extracting: c.recipients.extractsCodes, clock: clock)
        // A completion reports to the sender (bounces, delay notices) in its own transaction (LocalDelivery's port); a
        // move of an account's EmailSubmission state wakes its JMAP event streams here (and, on PostgreSQL, on every
        // instance through the queue's `postern_mail` notification).
        let reports = SenderReports(
            mailbox: delivery, writer: DeliveryStatusNotification(hostname: c.smtp.hostname))
        return LocalMail(
            store: store, domains: domains, directory: directory, delivery: delivery,
            outbound: OutboundQueue(
                database: database, configuration: c.outboundQueue, reports: reports,
                onSubmissionChange: { changes.announce([$0]) }))
    }

    /// Who is local: each surface's accounts, through its own directory; mailbox accounts are asked first. Both read
    /// the custom domains' verified holders from `claims`.
    static func localDirectory(_ c: PosternConfiguration, database: any SQLDatabase, claims: CustomDomains)
        -> LocalDirectory
    {
        return LocalDirectory([
            MailboxDirectory(database: database, domains: c.mailbox.domains + c.mailbox.proDomains, claims: claims),
            AgentInboxDirectory(
                accounts: AgentAccountStore(database: database), claims: claims, domain: c.agent.inboxDomain,
                quota: c.agent.inboxQuota),
            MailCXDirectory(configuration: c.mailCX),
        ])
    }

    /// The one custom-domain model every surface claims domains in and every directory reads: each surface's
    /// mailboxes on custom domains (the owners' agent inboxes, Mail.td's accounts) are asked before a domain is
    /// deleted or a mailbox made, and `signingKeys` makes a claimed domain's DKIM keys (nil: a command's, none).
    package static func customDomains(
        database: any SQLDatabase, signingKeys: (any DomainSigningKeys)?
    ) -> CustomDomains {
        CustomDomains(
            database: database,
            mailboxes: [AgentDomainMailboxes(database: database), MailboxDomainMailboxes(database: database)],
            signingKeys: signingKeys)
    }

    /// The one DNS resolver of `POSTERN_DNS_RESOLVER` (/etc/resolv.conf's first `nameserver` when unset), for every
    /// lookup the server makes: domain checks, the sandbox's sender authentication, the outbound MX, address and
    /// MTA-STS lookups (blocking on `threads`), and the host names of every outbound request (webhooks, remote hashes,
    /// sign-in providers, client metadata documents, MTA-STS policies, SMTP hosts), on the request's own thread.
    package static func resolver(_ c: PosternConfiguration, threads: WorkerPool) -> DNSResolver {
        DNSResolver(server: c.dns.resolver.flatMap(DNSServerAddress.init) ?? .system, threads: threads)
    }

    static func remoteConfiguration(_ c: PosternConfiguration, identity: PublicIdentity) -> RemoteHashConfiguration {
        var remote = RemoteHashConfiguration(issuer: identity.issuer, publicURL: identity.baseURL)
        remote.allowPrivate = c.outboundAddresses.allowPrivate
        remote.allowedHosts = c.outboundAddresses.allowedHosts
        return c.rateLimits.applied(to: remote)
    }

    /// The server's one outbound fetcher (remote hashes and webhooks), with its own I/O threads, resolving through
    /// `resolver` (the runtime's one).
    /// - Throws: `FetchError` when the trusted-roots file cannot be read.
    static func fetcher(_ c: PosternConfiguration, resolver: DNSResolver) throws -> Fetcher {
        try Fetcher(configuration: c.outboundAddresses.policy.fetchConfiguration, resolver: resolver)
    }

    /// The webhook dispatcher over the shared fetcher; started with the server.
    static func webhookDispatcher(
        _ c: PosternConfiguration, database: any SQLDatabase, fetcher: Fetcher, changes: MailChanges,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> WebhookDispatcher {
        WebhookDispatcher(
            queue: WebhookQueue(database: database, retryDelaySeconds: c.webhooks.retrySeconds),
            transport: FetcherWebhookTransport(fetcher: fetcher, policy: c.outboundAddresses.policy), changes: changes,
            clock: clock, logger: logger)
    }

    /// The app passwords (issue 87 item 2): the mail sign-in checks them, the owner pages and the Pro dashboard make
    /// and revoke them, each holder at most `POSTERN_OWNER_MAX_APP_PASSWORDS`.
    package static func appPasswords(_ c: PosternConfiguration, database: any SQLDatabase) -> AppPasswordStore {
        AppPasswordStore(database: database, limit: c.owners.maxAppPasswords)
    }

    static func ownersConfiguration(_ c: PosternConfiguration, identity: PublicIdentity) -> OwnersConfiguration {
        var owners = c.owners
        owners.publicURL = identity.baseURL
        owners.mxHost = c.dns.mxHost(publicURL: c.identity.publicURL)
        owners.servedDomains = [c.agent.inboxDomain] + c.mailbox.domains + c.mailbox.proDomains + c.mailCX.domains
        owners.outsideSendingNeedsApproval = c.outboundNeedsOwnerApproval
        return c.rateLimits.applied(to: c.passwords.applied(to: owners))
    }

    /// The authorization server's settings: its issuer is the public URL (contract 1.1).
    static func oauthConfiguration(_ c: PosternConfiguration, identity: PublicIdentity) -> OAuthConfiguration {
        var oauth = c.oauth
        oauth.issuer = identity.baseURL
        return c.rateLimits.applied(to: oauth)
    }

    /// The fetcher of the documents OAuth clients publish (client ID metadata documents, confidential clients'
    /// `jwks_uri`), nil when neither is on: Fetch's address policy (no non-global address but for
    /// `POSTERN_OAUTH_CIMD_ALLOW_HOSTS`), no redirects, 16 KiB at most, JSON asked for.
    /// - Throws: `FetchError` when `POSTERN_OAUTH_CIMD_TRUST_CA_FILE` cannot be read.
    static func clientDocumentFetcher(_ c: PosternConfiguration, resolver: DNSResolver) throws -> Fetcher? {
        guard c.oauth.clientMetadataDocuments || c.oauth.clientCredentials || c.oauth.openIDProvider else { return nil }
        return try documentFetcher(c, resolver: resolver)
    }

    /// The document at a relying party's `sector_identifier_uri` (`oauth client create`), through the fetcher of the
    /// documents OAuth clients publish (``documentFetcher(_:resolver:)``); nil unless it answered 200 without a
    /// redirect.
    /// - Throws: `FetchError` when `POSTERN_OAUTH_CIMD_TRUST_CA_FILE` cannot be read.
    package static func sectorIdentifierDocument(_ c: PosternConfiguration, uri: String) async throws -> [UInt8]? {
        let fetcher = try documentFetcher(c, resolver: resolver(c, threads: DNSResolver.threadPool()))
        return await fetcher.document(at: uri)?.body
    }

    /// The fetcher of ``clientDocumentFetcher(_:resolver:)`` whatever is on.
    /// - Throws: `FetchError` when `POSTERN_OAUTH_CIMD_TRUST_CA_FILE` cannot be read.
    static func documentFetcher(_ c: PosternConfiguration, resolver: DNSResolver) throws -> Fetcher {
        var fetch = FetchConfiguration(
            policy: AddressPolicy(allowPrivate: false, allowedHosts: c.oauth.clientMetadataAllowedHosts))
        fetch.maxRedirects = 0
        fetch.maxBodyBytes = 16 * 1024
        fetch.concurrentFetches = 4
        fetch.accept = "application/json"
        fetch.trustedRootsPEMFile = c.oauth.clientMetadataTrustedRoots
        return try Fetcher(configuration: fetch, resolver: resolver)
    }

    static func agentConfiguration(_ c: PosternConfiguration, identity: PublicIdentity) -> AgentAuthConfiguration {
        var agent = c.agent
        agent.publicURL = AgentAuthConfiguration(publicURL: identity.baseURL).publicURL
        agent.issuer = identity.issuer
        return c.rateLimits.applied(to: agent)
    }

    /// The Mail.td surface's settings: its issuer, and what it shares with the other surfaces.
    static func mailboxConfiguration(_ c: PosternConfiguration, issuer: String, sandboxPort: Int?)
        -> MailboxConfiguration
    {
        var mailbox = c.mailbox
        mailbox.issuer = issuer
        mailbox.domains = c.mailbox.domains.map { EmailDomain.key($0) }
        mailbox.proDomains = c.mailbox.proDomains.map { EmailDomain.key($0) }
        mailbox.mxHost = c.dns.mxHost(publicURL: c.identity.publicURL)
        mailbox.otherServedDomains = [EmailDomain.key(c.agent.inboxDomain)] + c.mailCX.domains
        mailbox.openMailboxes = c.mailCX.domains.isEmpty ? nil : MailCXDirectory(configuration: c.mailCX)
        mailbox.outboundPolicy = c.outboundAddresses.policy
        mailbox.webhookRetrySeconds = c.webhooks.retrySeconds
        mailbox.sandboxSMTPHost = c.smtp.hostname
        mailbox.sandboxSMTPPort = sandboxPort
        return c.rateLimits.applied(to: c.passwords.applied(to: mailbox))
    }

    /// Mail.td's accounts over their store and the shared mail store (`mail`): the runtime's one (``MailAccess``), and
    /// `postern pro create|list`'s.
    /// - Parameters:
    ///   - resolver: the one DNS resolver, ``resolver(_:threads:)``: the runtime's, or a command's own.
    ///   - customDomains: the one custom-domain model, ``customDomains(database:signingKeys:)``: the runtime's, or a
    ///     command's own, which makes and shows no DKIM keys.
    package static func mailboxAccounts(
        _ c: PosternConfiguration, issuer: String, keys: JWTKeySet, database: any SQLDatabase, mail: MailStore,
        pool: WorkerPool, resolver: DNSResolver, customDomains: CustomDomains, clock: @escaping @Sendable () -> Int64,
        sandboxPort: Int? = nil, audit: AuditTrail = .disabled
    ) -> MailboxAccountService {
        MailboxAccountService(
            configuration: mailboxConfiguration(c, issuer: issuer, sandboxPort: sandboxPort), keys: keys,
            store: MailboxStore(database: database), mail: mail, pool: pool, resolver: resolver,
            customDomains: customDomains, clock: clock, audit: audit)
    }

    /// What the routes of Mail.td's shape share over `accounts`.
    /// - Parameters:
    ///   - proSecondFactors: Pro users' second factors.
    ///   - webInbox: whose ``WebInboxConfiguration/proSecondFactor`` policy says which Pro users' passwords ask a
    ///     second step, and so make no Pro JWT.
    static func mailboxService(
        accounts: MailboxAccountService, ledger: ChallengeLedger, proSecondFactors: SecondFactorStore,
        webInbox: WebInboxConfiguration, logger: Logger
    ) throws -> MailboxService {
        try MailboxService(
            accounts: accounts, ledger: ledger, onUnexpectedError: reporter("mailbox", logger),
            proPasswordAsksSecondStep: {
                webInbox.proPasswordAsksSecondStep(enrolled: try await proSecondFactors.state(holder: $0).isOn)
            })
    }

    /// The audit trail every surface records to: the `audit_events` table; a failed write is logged, never fatal.
    static func auditTrail(database: any SQLDatabase, clock: @escaping @Sendable () -> Int64, logger: Logger)
        -> AuditTrail
    {
        AuditTrail(SQLAuditLog(database: database), clock: clock, logger: logger)
    }

    /// Logs an error a surface answered with a bare 500, with the request id (errors of the crypto and
    /// storage modules never carry secrets).
    static func reporter(_ surface: String, _ logger: Logger) -> UnexpectedErrorReporter {
        { error, requestID in
            logger.error("\(surface) request failed", metadata: ["error": "\(error)", "request_id": "\(requestID)"])
        }
    }
}
