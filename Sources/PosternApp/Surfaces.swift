import AgentAuth
import Audit
import BrowserPages
import ComputePool
import CustomDomains
import DNS
import Directory
import EmailAddresses
import HTTP1
import JWT
import Logging
import Fetch
import Foundation
import JMAP
import MailDelivery
import MailStore
import MailSandbox
import MailTransfer
import MailboxAccounts
import MailboxWebInbox
import MCPServer
import OAuthGrants
import OAuthResource
import OAuthServer
import OutboundQueue
import OutboundSocket
import Owners
import Passkeys
import RemoteHashAuth
import ServerKit
import SignInProviders
import Storage
import Webhooks
import WebInbox

/// Builds the API surfaces from the configuration's parts and adds their routes.
enum Surfaces {
    /// Adds every surface's routes; returns the 404/405 renderers of the surfaces that own a path prefix.
    /// - Parameter context: what the runtime built once and every surface is given.
    /// - Throws: storage or crypto errors from a surface's start-up (the mailbox challenge secret).
    static func register(into router: inout ContextRouter, _ context: SurfaceContext) throws
        -> (unmatched: [PosternResponder.UnmatchedRenderer], sandbox: MailSandbox)
    {
        let (configuration, identity, keys, database, ledger, pool) = (
            context.configuration, context.identity, context.keys, context.database, context.ledger, context.pool
        )
        let (resolver, fetcher, mail, grantCache, metrics, clock, logger) = (
            context.resolver, context.fetcher, context.mail, context.grantCache, context.metrics, context.clock,
            context.logger
        )
        let (smtpAddress, sandboxPort) = (context.smtpAddress, context.sandboxPort)
        let agentSettings = agentConfiguration(configuration, identity: identity)
        let remoteSettings = remoteConfiguration(configuration, identity: identity)
        let agent = AgentAuthService(
            configuration: agentSettings, keys: keys, database: database,
            ledger: ledger, pool: pool, clock: clock, onUnexpectedError: reporter("agent", logger))
        agent.register(into: &router)

        let audit = auditTrail(database: database, clock: clock, logger: logger)
        let mailbox = try mailboxService(
            configuration, issuer: identity.issuer, keys: keys, database: database, mail: mail.store, ledger: ledger,
            pool: pool, resolver: resolver, customDomains: mail.domains, clock: clock, logger: logger,
            sandboxPort: sandboxPort, audit: audit)
        mailbox.register(into: &router)
        let webhooks = WebhooksController(surface: mailbox, store: WebhookStore(database: database))
        webhooks.register(on: &router)
        let sandbox = MailSandbox(surface: mailbox, store: SandboxStore(database: database), mail: mail.store)
        sandbox.register(on: &router)
        mailpitAPI(configuration, mail: mail, sandbox: sandbox, clock: clock, logger: logger).register(on: &router)

        try RemoteHashService(
            configuration: remoteSettings, keys: keys, database: database, pool: pool, fetcher: fetcher, clock: clock,
            onUnexpectedError: reporter("remote-hash", logger)
        ).register(into: &router, landing: LandingPage.landing(baseURL: identity.baseURL))

        let ownerSettings = ownersConfiguration(configuration, identity: identity)
        // The browser pages' one middleware: the owner pages and the web inbox draw from one page budget per client.
        let pages = PageRoutes(
            requestsPerMinute: ownerSettings.requestsPerMinute, instances: ownerSettings.instances,
            tableCapacity: ownerSettings.rateLimitTableCapacity, enabled: ownerSettings.rateLimitsEnabled,
            onUnexpectedError: reporter("owners", logger))
        // Sign-in with identity providers (issue 54): the buttons, the flow's routes and "Sign-in methods" on /owner.
        let signIn = try signInFlow(
            configuration, identity: identity, database: database, resolver: resolver, clock: clock)
        // Each provider's discovery tried once now, so that a misconfigured one is a warning at start, not a "try
        // later" on the page (issue 68); the server does not wait for it.
        if let signIn { Task { await ProviderDiscoveryCheck.warn(signIn, logger: logger) } }
        let signInIdentities = SignInIdentityStore(database: database, clock: clock)
        let owners = try OwnerService(
            configuration: ownerSettings, database: database, pool: pool, resolver: resolver,
            customDomains: mail.domains, clock: clock, audit: audit, pages: pages,
            passkeyStore: PasskeyStore(database: database),
            relyingParty: configuration.webAuthn.relyingParty(publicURL: identity.baseURL),
            signInButtons: signIn?.providers(for: .owners) ?? [], identities: signInIdentities,
            providerLogout: { [signIn] provider in await signIn?.endSessionURL(provider: provider) })
        owners.register(into: &router)
        let ownerProviderPages = signIn.map {
            OwnerProviderPages(service: owners, flow: $0, identities: signInIdentities)
        }
        ownerProviderPages?.register(into: &router)
        let ownedInboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: database), domain: configuration.agent.inboxDomain, clock: clock)
        // The one grant model under the authorization server, the resource side and the owner pages; every
        // revocation it makes drops the grant from this instance's cache.
        let grants = OAuthGrantStore(database: database, observer: grantCache)
        OwnerInboxPages(
            service: owners, inboxes: ownedInboxes, grants: OwnerGrants(store: grants, clock: clock),
            agentDomain: configuration.agent.inboxDomain
        ).register(into: &router)
        OwnerDomainPages(service: owners, inboxes: ownedInboxes).register(into: &router)

        let oauth = try OAuthService(
            configuration: oauthConfiguration(configuration, identity: identity), keys: keys, database: database,
            grants: grants, pool: pool, browser: owners.browser,
            inboxes: CappedOwnedInboxes(ownedInboxes, limit: ownerSettings.maxInboxes),
            metadataDocuments: try clientMetadataFetcher(configuration, resolver: resolver), clock: clock,
            onUnexpectedError: reporter("oauth", logger), audit: audit)
        oauth.register(into: &router)

        var jmap = configuration.jmap
        jmap.baseURL = JMAPConfiguration(baseURL: identity.baseURL).baseURL
        jmap = configuration.rateLimits.applied(to: jmap)
        // Agent bearers are checked against the agent surface's own directory, not the composed one: an inbox on a
        // custom domain its owner no longer holds must not pass because a Pro user's catch-all now makes the same
        // address local.
        let agentInboxes = AgentInboxDirectory(
            accounts: AgentAccountStore(database: database), claims: mail.domains,
            domain: configuration.agent.inboxDomain, quota: configuration.agent.inboxQuota)
        let capability = CapabilityAuthenticator(
            keys: keys, issuer: identity.issuer, audience: agentSettings.audience,
            lifetime: agentSettings.capabilityTTL, directory: agentInboxes, clock: clock)
        // The resource side of OAuth: owners' access tokens at JMAP, MCP and /api/v1/agents, minted by the
        // authorization server whose issuer is the public URL (contract 1.1). Live grants are cached only on
        // PostgreSQL, where every revocation reaches the cache through `postern_grants` (PosternRuntime).
        var resource = OAuthResourceConfiguration(issuer: identity.baseURL, baseURL: identity.baseURL)
        resource.cacheGrants = database.dialect == .postgres
        resource = configuration.rateLimits.applied(to: resource)
        let verifier = OAuthAccessVerifier(
            configuration: resource, keys: keys, grants: grants, cache: grantCache, clock: clock)
        let ownerPrincipals = OwnerPrincipals(inboxes: ownedInboxes, directory: agentInboxes)
        OAuthAgentsService(
            verifier: verifier, inboxes: ownedInboxes, publicURL: identity.baseURL, rateLimits: resource.rateLimits,
            onUnexpectedError: reporter("agents", logger)
        ).register(into: &router)
        let jmapService = JMAPService(
            configuration: jmap,
            authenticator: OAuthJMAPAuthenticator(verifier: verifier, principals: ownerPrincipals, fallback: capability), store: mail.store, directory: mail.directory,
            delivery: mail.delivery, clock: clock, onSubmission: metrics.jmapSubmission,
            onUnexpectedError: reporter("jmap", logger), onEventStream: metrics.jmapEventStream,
            outbound: jmapOutbound(configuration, mail: mail, database: database))
        jmapService.register(into: &router)

        // The web inbox: owners read their inboxes through their owner session; Mail.td accounts, Pro users and
        // one-time links through its own sessions, with the owners' backoff and session lifetime. Owners send as their
        // inboxes through JMAP, as their agents do.
        var inboxSettings = configuration.webInbox
        inboxSettings.publicURL = identity.baseURL
        inboxSettings.sessionLifetime = ownerSettings.sessionLifetime
        inboxSettings.backoff = ownerSettings.backoff
        let inboxAccounts = MailboxWebInboxSignIn(surface: mailbox, sandbox: sandbox, directory: mail.directory)
        // Pro users' passkeys run on the owners' ceremonies: one relying party, store and challenge table.
        let proPasskeys = owners.passkeys.map {
            WebInboxPasskeys(ceremonies: $0, audit: audit, onCeremony: metrics.passkeyCeremony)
        }
        let proProviders = signIn.map {
            WebInboxProviders(flow: $0, identities: signInIdentities, accounts: inboxAccounts, audit: audit)
        }
        let inbox = try WebInboxService(
            configuration: inboxSettings, ownerBrowser: owners.browser, pages: pages, ownedInboxes: ownedInboxes,
            signIns: inboxAccounts, mail: mail.store, database: database, clock: clock,
            sender: JMAPWebInboxSender(jmap: jmapService, principals: ownerPrincipals), captures: inboxAccounts,
            linksDashboard: true, onLiveStream: metrics.webInboxLiveStream,
            signInOffer: WebInboxSignInOffer(passkeys: proPasskeys, providers: proProviders))
        inbox.register(into: &router)
        // The one sign-in methods controller, mounted for Pro users (the owners' mount is OwnerProviderPages and
        // OwnerService's passkeys).
        let proSignIn = ProSignInMethods(inbox: inbox, passkeys: proPasskeys, providers: proProviders)
        proSignIn.register(into: &router)
        if let signIn, let ownerProviderPages {
            // The one redirect URI of every surface: each login goes back to the surface that began it.
            router.add(
                .GET, SignInRedirect.path,
                pages.limited { request, context in
                    try await signIn.answer(
                        request, surfaces: [.owners: ownerProviderPages, .pro: proSignIn], fallback: .owners,
                        client: context.clientAddress?.description,
                        clear: owners.browser.clearCookie(SignInFlow.browserCookie))
                })
        }
        ProDashboardController(
            inbox: inbox, surface: mailbox, webhooks: webhooks, sandboxes: sandbox, signInMethods: proSignIn
        ).register(into: &router)

        var mcp = configuration.mcp
        mcp.baseURL = MCPConfiguration(baseURL: identity.baseURL).baseURL
        mcp.serverVersion = PosternVersion.text
        mcp = configuration.rateLimits.applied(to: mcp)
        let apiKeys = AgentAPIKeyAuthenticator(
            accounts: AgentAccountStore(database: database), inboxDomain: configuration.agent.inboxDomain,
            directory: agentInboxes)
        MCPService(
            configuration: mcp, authenticator: apiKeys,
            owners: MCPOwnerAccess(verifier: verifier, principals: ownerPrincipals, issuer: identity.baseURL),
            jmap: jmapService, mail: mail.store, clock: clock,
            sessionSecret: try SharedSecrets(database: database).secret(
                named: MCPSessions.secretName, make: MCPSessions.newSecret),
            onUnexpectedError: reporter("mcp", logger)
        ).register(into: &router)

        let guide = Array(
            LLMsDocument.render(
                baseURL: identity.baseURL, agent: agentSettings, mailbox: mailbox.configuration, remote: remoteSettings,
                smtpAddress: smtpAddress, mcp: mcp, oauth: oauth.configuration
            ).utf8)
        router.add(.GET, "/llms.txt", .immediate { _, _, _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/markdown; charset=utf-8", "Cache-Control": "no-store"],
                body: guide)
        })

        return (
            [
                PosternResponder.UnmatchedRenderer(prefix: "/api/v1/") { agent.unmatchedResponse($0) },
                PosternResponder.UnmatchedRenderer(prefix: "/oauth/") { oauth.unmatchedResponse($0) },
            ], sandbox
        )
    }

    /// The mail store and who may receive: shared by SMTP, JMAP, the sandbox, the Mail.td surface and `postern mail
    /// deliver`. Its deliveries queue webhook events in their own transaction (``WebhookArrivals``).
    struct LocalMail {
        let store: MailStore
        /// The one custom-domain model: the claims the directory reads and the surfaces add, check and delete.
        let domains: CustomDomains
        let directory: LocalDirectory
        let delivery: LocalDelivery
        /// The outbound queue: JMAP's submissions and what leaves.
        let outbound: OutboundQueue
    }

    /// - Parameters:
    ///   - changes: who waits for mail to change; the runtime's one stream (a command's own otherwise).
    ///   - domains: the runtime's one custom-domain model, from ``customDomains(database:signingKeys:)``; a command's
    ///     own, which makes no DKIM keys, when nil.
    static func localMail(
        _ c: PosternConfiguration, database: any SQLDatabase, changes: MailChanges = MailChanges(),
        domains: CustomDomains? = nil, clock: @escaping @Sendable () -> Int64
    ) -> LocalMail {
        let domains = domains ?? customDomains(database: database, signingKeys: nil)
        let store = MailStore(database: database, changes: changes, arrivals: WebhookArrivals())
        let directory = localDirectory(c, database: database, claims: domains)
        let policy = RecipientPolicy(
            delimiters: c.recipients.recipientDelimiter,
            catchAll: c.recipients.acceptAny ? RecipientPolicy.catchAll(quota: c.recipients.catchAllQuota) : nil)
        let delivery = LocalDelivery(
            directory: directory, store: store, maximumMessageBytes: c.smtp.maxMessageBytes, policy: policy,
            clock: clock)
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
    static func localDirectory(
        _ c: PosternConfiguration, database: any SQLDatabase, claims: CustomDomains? = nil
    ) -> LocalDirectory {
        let claims = claims ?? customDomains(database: database, signingKeys: nil)
        return LocalDirectory([
            MailboxDirectory(database: database, domains: c.mailbox.domains + c.mailbox.proDomains, claims: claims),
            AgentInboxDirectory(
                accounts: AgentAccountStore(database: database), claims: claims, domain: c.agent.inboxDomain,
                quota: c.agent.inboxQuota),
        ])
    }

    /// The one custom-domain model every surface claims domains in and every directory reads: each surface's
    /// mailboxes on custom domains (the owners' agent inboxes, Mail.td's accounts) are asked before a domain is
    /// deleted or a mailbox made, and `signingKeys` makes a claimed domain's DKIM keys (nil: a command's, none).
    static func customDomains(database: any SQLDatabase, signingKeys: (any DomainSigningKeys)?) -> CustomDomains {
        CustomDomains(
            database: database,
            mailboxes: [AgentDomainMailboxes(database: database), MailboxDomainMailboxes(database: database)],
            signingKeys: signingKeys)
    }

    /// The one DNS resolver of `POSTERN_DNS_RESOLVER` (/etc/resolv.conf's first `nameserver` when unset), for every
    /// lookup the server makes: domain checks, the sandbox's sender authentication, the outbound MX, address and
    /// MTA-STS lookups (blocking on `threads`), and the host names of every outbound request (webhooks, remote hashes,
    /// sign-in providers, client metadata documents, MTA-STS policies, SMTP hosts), on the request's own thread.
    static func resolver(_ c: PosternConfiguration, threads: WorkerPool) -> DNSResolver {
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

    static func ownersConfiguration(_ c: PosternConfiguration, identity: PublicIdentity) -> OwnersConfiguration {
        var owners = c.owners
        owners.publicURL = identity.baseURL
        owners.mxHost = c.dns.mxHost(publicURL: c.identity.publicURL)
        owners.dnsResolver = c.dns.resolver
        owners.servedDomains = [c.agent.inboxDomain] + c.mailbox.domains + c.mailbox.proDomains
        owners.outsideSendingNeedsApproval = c.outboundNeedsOwnerApproval
        return c.rateLimits.applied(to: c.passwords.applied(to: owners))
    }

    /// The authorization server's settings: its issuer is the public URL (contract 1.1).
    static func oauthConfiguration(_ c: PosternConfiguration, identity: PublicIdentity) -> OAuthConfiguration {
        var oauth = c.oauth
        oauth.issuer = identity.baseURL
        return c.rateLimits.applied(to: oauth)
    }

    /// The fetcher of OAuth client ID metadata documents, nil when they are off: Fetch's address policy (no
    /// non-global address but for `POSTERN_OAUTH_CIMD_ALLOW_HOSTS`), no redirects, 16 KiB at most, JSON asked for.
    /// - Throws: `FetchError` when `POSTERN_OAUTH_CIMD_TRUST_CA_FILE` cannot be read.
    static func clientMetadataFetcher(_ c: PosternConfiguration, resolver: DNSResolver) throws -> Fetcher? {
        guard c.oauth.clientMetadataDocuments else { return nil }
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
        mailbox.dnsResolver = c.dns.resolver
        mailbox.otherServedDomains = [EmailDomain.key(c.agent.inboxDomain)]
        mailbox.outboundPolicy = c.outboundAddresses.policy
        mailbox.webhookRetrySeconds = c.webhooks.retrySeconds
        mailbox.sandboxSMTPHost = c.smtp.hostname
        mailbox.sandboxSMTPPort = sandboxPort
        return c.rateLimits.applied(to: c.passwords.applied(to: mailbox))
    }

    /// The mailbox surface over its store and the shared mail store (`mail`); also used by `postern pro create|list`.
    /// The operator's reset forgets the sandbox's records with every message.
    /// - Parameters:
    ///   - resolver: the runtime's one DNS resolver; nil (the commands) makes one of `POSTERN_DNS_RESOLVER`.
    ///   - customDomains: the runtime's one custom-domain model; nil (the commands) makes one that makes and shows no
    ///     DKIM keys.
    static func mailboxService(
        _ c: PosternConfiguration, issuer: String, keys: JWTKeySet, database: any SQLDatabase, mail: MailStore,
        ledger: ChallengeLedger, pool: WorkerPool, resolver: DNSResolver? = nil, customDomains: CustomDomains? = nil,
        clock: @escaping @Sendable () -> Int64, logger: Logger, sandboxPort: Int? = nil, audit: AuditTrail = .disabled
    ) throws -> MailboxService {
        try MailboxService(
            configuration: mailboxConfiguration(c, issuer: issuer, sandboxPort: sandboxPort), keys: keys,
            store: MailboxStore(database: database), mail: mail, ledger: ledger,
            pool: pool, resolver: resolver ?? Self.resolver(c, threads: DNSResolver.threadPool()),
            customDomains: customDomains ?? Self.customDomains(database: database, signingKeys: nil), clock: clock,
            onUnexpectedError: reporter("mailbox", logger),
            audit: audit, recordsBesideMessages: [SandboxStore(database: database)],
            accountsBesideMailboxes: [AgentAccountReset(store: AgentAccountStore(database: database))])
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
