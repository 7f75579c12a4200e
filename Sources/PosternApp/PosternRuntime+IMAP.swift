import AgentAuth
import BrowserPages
import IMAPServer
import OAuthGrants
import Logging
import SocketServer

/// The IMAP and POP3 listeners' part of the runtime (issue 70): their servers over the one mail store, on the loops
/// HTTP and SMTP share, signed in through the Mail.td surface, with SMTP's certificate for TLS.
extension PosternRuntime {
    /// The IMAP listeners' services, on sockets bound beforehand: `socket` with `STARTTLS`, and `implicitTLS` (the
    /// `POSTERN_IMAPS_PORT` listener) with TLS from the first byte, both with SMTP's certificate (the operator's
    /// `POSTERN_SMTP_TLS_CERT`, else the data directory's self-signed pair).
    static func imapServices(
        _ configuration: PosternConfiguration, on socket: ListeningSocket, implicitTLS: ListeningSocket?,
        context: SurfaceContext, draining: DrainFlag, group: EventLoopGroup, logger: Logger
    ) throws -> [RuntimeService] {
        let signIn = try mailboxSignIn(configuration, context: context, door: .imap)
        var settings = configuration.imap.serverConfiguration(
            listenerHost: configuration.listener.host, trustedProxies: configuration.listener.trustedProxies,
            wallClock: context.clock)
        settings.tls = try SMTPCertificate.configuredOrSelfSigned(configuration, logger: logger)
        var listeners = [("IMAP", socket, settings)]
        if let implicitTLS {
            settings.implicitTLS = true
            listeners.append(("IMAPS", implicitTLS, settings))
        }
        return serving(listeners, group: group) {
            IMAPServer(
                configuration: $0, store: context.mail.store, signIn: signIn, group: group, logger: context.logger,
                draining: { draining.isSet })
        }
    }

    /// The POP3 listeners' services, on sockets bound beforehand: the INBOX to the holders IMAP signs in, on `socket`
    /// with `STLS` and on `implicitTLS` (the `POSTERN_POP3S_PORT` listener) with TLS from the first byte, both on
    /// SMTP's certificate as IMAP's.
    static func pop3Services(
        _ configuration: PosternConfiguration, on socket: ListeningSocket, implicitTLS: ListeningSocket?,
        context: SurfaceContext, draining: DrainFlag, group: EventLoopGroup, logger: Logger
    ) throws -> [RuntimeService] {
        let signIn = try mailboxSignIn(configuration, context: context, door: .pop3)
        var settings = configuration.pop3.serverConfiguration(
            listenerHost: configuration.listener.host, trustedProxies: configuration.listener.trustedProxies,
            wallClock: context.clock)
        settings.tls = try SMTPCertificate.configuredOrSelfSigned(configuration, logger: logger)
        var listeners = [("POP3", socket, settings)]
        if let implicitTLS {
            settings.implicitTLS = true
            listeners.append(("POP3S", implicitTLS, settings))
        }
        return serving(listeners, group: group) {
            POP3Server(
                configuration: $0, store: context.mail.store, signIn: signIn, group: group, logger: context.logger,
                draining: { draining.isSet })
        }
    }

    /// Each of a mail protocol's listeners (its name, its socket bound beforehand, its settings) as a service: the
    /// server `make` builds for its settings, started on the socket and shut down with the runtime.
    private static func serving<Settings: MailListenerSettings>(
        _ listeners: [(String, ListeningSocket, Settings)], group: EventLoopGroup,
        make: (Settings) -> MailServer<Settings>
    ) -> [RuntimeService] {
        listeners.map { name, socket, settings in
            let server = make(settings)
            return .listening(name, on: socket, group: group) {
                _ = try server.start(on: $0)
            } stop: {
                await server.shutdown()
            }
        }
    }

    /// The one sign-in of both mail protocols: a Mail.td account through the Mail.td surface (under the web inbox's
    /// backoff), an agent inbox by its API key; audited as `door`.
    private static func mailboxSignIn(
        _ configuration: PosternConfiguration, context: SurfaceContext, door: MailboxIMAPSignIn.Door
    ) throws -> MailboxIMAPSignIn {
        let audit = Surfaces.auditTrail(database: context.database, clock: context.clock, logger: context.logger)
        let surface = try Surfaces.mailboxService(
            configuration, issuer: context.identity.issuer, keys: context.keys, database: context.database,
            mail: context.mail.store, ledger: context.ledger, pool: context.pool, resolver: context.resolver,
            customDomains: context.mail.domains, clock: context.clock, logger: context.logger, audit: audit)
        let owners = OwnerAccess(context, grants: OAuthGrantStore(database: context.database, observer: context.grantCache))
        let agents = AgentAPIKeyAuthenticator(
            accounts: AgentAccountStore(database: context.database), inboxDomain: configuration.agent.inboxDomain,
            directory: owners.agentInboxes)
        return MailboxIMAPSignIn(
            door: door, surface: surface, agents: agents, owners: owners, directory: context.mail.directory,
            throttle: SignInThrottle(database: context.database, backoff: configuration.webInbox.backoff), audit: audit,
            clock: context.clock)
    }
}
