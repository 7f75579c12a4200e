import AgentAuth
import BrowserPages
import IMAPServer
import Logging
import SocketServer

/// The IMAP listener's part of the runtime (issue 70): its server over the one mail store, on the loops HTTP and SMTP
/// share, signed in through the Mail.td surface.
extension PosternRuntime {
    /// The IMAP listeners' services, on sockets bound beforehand: `socket` with `STARTTLS`, and `implicitTLS` (the
    /// `POSTERN_IMAPS_PORT` listener) with TLS from the first byte, both with SMTP's certificate (the operator's
    /// `POSTERN_SMTP_TLS_CERT`, else the data directory's self-signed pair).
    static func imapServices(
        _ configuration: PosternConfiguration, on socket: ListeningSocket, implicitTLS: ListeningSocket?,
        context: SurfaceContext, draining: DrainFlag, group: EventLoopGroup, logger: Logger
    ) throws -> [RuntimeService] {
        let audit = Surfaces.auditTrail(database: context.database, clock: context.clock, logger: context.logger)
        let surface = try Surfaces.mailboxService(
            configuration, issuer: context.identity.issuer, keys: context.keys, database: context.database,
            mail: context.mail.store, ledger: context.ledger, pool: context.pool, resolver: context.resolver,
            customDomains: context.mail.domains, clock: context.clock, logger: context.logger, audit: audit)
        let agents = AgentAPIKeyAuthenticator(
            accounts: AgentAccountStore(database: context.database), inboxDomain: configuration.agent.inboxDomain,
            directory: AgentInboxDirectory(
                accounts: AgentAccountStore(database: context.database), claims: context.mail.domains,
                domain: configuration.agent.inboxDomain, quota: configuration.agent.inboxQuota))
        let signIn = MailboxIMAPSignIn(
            surface: surface, agents: agents, directory: context.mail.directory,
            throttle: SignInThrottle(database: context.database, backoff: configuration.webInbox.backoff), audit: audit,
            clock: context.clock)
        var settings = configuration.imap.serverConfiguration(
            listenerHost: configuration.listener.host, trustedProxies: configuration.listener.trustedProxies,
            wallClock: context.clock)
        settings.tls = try SMTPCertificate.configuredOrSelfSigned(configuration, logger: logger)
        var listeners = [("IMAP", socket, settings)]
        if let implicitTLS {
            settings.implicitTLS = true
            listeners.append(("IMAPS", implicitTLS, settings))
        }
        return listeners.map { name, socket, settings in
            let server = IMAPServer(
                configuration: settings, store: context.mail.store, signIn: signIn, group: group,
                logger: context.logger, draining: { draining.isSet })
            return .listening(name, on: socket, group: group) {
                _ = try server.start(on: $0)
            } stop: {
                await server.shutdown()
            }
        }
    }
}
