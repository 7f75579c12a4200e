import AgentAuth
import BrowserPages
import IMAPServer
import OAuthGrants
import Logging
import ServerTLS
import SocketServer

/// The IMAP and POP3 listeners' part of the runtime (issue 70): their servers over the one mail store, on the loops
/// HTTP and SMTP share, signed in through the Mail.td surface, with SMTP's certificate for TLS.
extension PosternRuntime {
    /// The IMAP and POP3 listeners' services, on the sockets `build` bound: IMAP with `STARTTLS`, IMAPS (the
    /// `POSTERN_IMAPS_PORT` listener) with TLS from the first byte, POP3 (the INBOX to the holders IMAP signs in) with
    /// `STLS` and POP3S (`POSTERN_POP3S_PORT`) with TLS from the first byte, all with SMTP's certificate `tls`.
    static func mailListeners(
        _ configuration: PosternConfiguration, sockets: ListenerSockets, tls: TLSServerContext,
        context: SurfaceContext, draining: DrainFlag, group: EventLoopGroup
    ) throws -> [RuntimeService] {
        let listener = configuration.listener
        var services: [RuntimeService] = []
        let imapSockets = [("IMAP", sockets[.imap], false), ("IMAPS", sockets[.imaps], true)]
        if sockets[.imap] != nil {
            let signIn = try mailboxSignIn(configuration, context: context, door: .imap)
            var imap = configuration.imap.serverConfiguration(
                listenerHost: listener.host, trustedProxies: listener.trustedProxies, wallClock: context.clock)
            imap.tls = tls
            for case let (name, socket?, implicitTLS) in imapSockets {
                imap.implicitTLS = implicitTLS
                let server = IMAPServer(
                    configuration: imap, store: context.mail.store, signIn: signIn, group: group,
                    logger: context.logger, draining: { draining.isSet })
                services.append(.listening(name, server, on: socket, group: group))
            }
        }
        let pop3Sockets = [("POP3", sockets[.pop3], false), ("POP3S", sockets[.pop3s], true)]
        if sockets[.pop3] != nil {
            let signIn = try mailboxSignIn(configuration, context: context, door: .pop3)
            var pop3 = configuration.pop3.serverConfiguration(
                listenerHost: listener.host, trustedProxies: listener.trustedProxies, wallClock: context.clock)
            pop3.tls = tls
            for case let (name, socket?, implicitTLS) in pop3Sockets {
                pop3.implicitTLS = implicitTLS
                let server = POP3Server(
                    configuration: pop3, store: context.mail.store, signIn: signIn, group: group,
                    logger: context.logger, draining: { draining.isSet })
                services.append(.listening(name, server, on: socket, group: group))
            }
        }
        return services
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
