import AgentAuth
import BrowserPages
import BufferBudget
import IMAPServer
import MailboxAccounts
import OAuthGrants
import ServerKit
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
        context: SurfaceContext, buffers: BufferBudget, draining: DrainFlag, group: EventLoopGroup
    ) throws -> [RuntimeService] {
        let (host, proxies) = (configuration.listener.host, configuration.listener.trustedProxies)
        let (store, logger) = (context.mail.store, context.logger)
        var services: [RuntimeService] = []
        let limiter = signInLimiter(configuration.rateLimits.applied(to: configuration.mailbox))
        if sockets[.imap] != nil {
            let signIn = try mailboxSignIn(configuration, context: context, door: .imap, limiter: limiter)
            var imap = configuration.imap.serverConfiguration(
                listenerHost: host, trustedProxies: proxies, wallClock: context.clock)
            imap.buffers = buffers
            let ports = [("IMAP", sockets[.imap], false), ("IMAPS", sockets[.imaps], true)]
            services += serving(imap, tls: tls, on: ports, group: group) {
                IMAPServer(configuration: $0, store: store, signIn: signIn, group: group, logger: logger) {
                    draining.isSet
                }
            }
        }
        if sockets[.pop3] != nil {
            let signIn = try mailboxSignIn(configuration, context: context, door: .pop3, limiter: limiter)
            let pop3 = configuration.pop3.serverConfiguration(
                listenerHost: host, trustedProxies: proxies, wallClock: context.clock)
            let ports = [("POP3", sockets[.pop3], false), ("POP3S", sockets[.pop3s], true)]
            services += serving(pop3, tls: tls, on: ports, group: group) {
                POP3Server(configuration: $0, store: store, signIn: signIn, group: group, logger: logger) {
                    draining.isSet
                }
            }
        }
        return services
    }

    /// A mail protocol's listeners as services: each bound socket of `ports` (its name, and whether TLS starts at the
    /// first byte) with the server `make` builds for `settings` with SMTP's certificate `tls`.
    private static func serving<Settings: MailTLSSettings>(
        _ settings: Settings, tls: TLSServerContext, on ports: [(String, ListeningSocket?, Bool)],
        group: EventLoopGroup, make: (Settings) -> some SocketListeningServer
    ) -> [RuntimeService] {
        ports.compactMap { name, socket, implicitTLS in
            guard let socket else { return nil }
            var served = settings
            served.tls = tls
            served.implicitTLS = implicitTLS
            return .listening(name, make(served), on: socket, group: group)
        }
    }

    /// The one sign-in of both mail protocols: a Mail.td account through the Mail.td surface (under the web inbox's
    /// backoff), an agent inbox by its API key; audited as `door`.
    private static func mailboxSignIn(
        _ configuration: PosternConfiguration, context: SurfaceContext, door: MailboxIMAPSignIn.Door,
        limiter: RateLimitTable<MailboxRateClass>?
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
            throttle: SignInThrottle(database: context.database, backoff: configuration.webInbox.backoff),
            limiter: limiter, audit: audit, clock: context.clock)
    }

    /// The per-client buckets both mail doors' sign-ins take from, at Mail.td's public rate (`POST /api/token`'s)
    /// shared among the instances; nil when rate limits are off.
    private static func signInLimiter(_ mailbox: MailboxConfiguration) -> RateLimitTable<MailboxRateClass>? {
        guard mailbox.rateLimitsEnabled else { return nil }
        let rates = mailbox.rateLimits.share(among: mailbox.instances)
        return RateLimitTable(capacity: mailbox.rateLimitTableCapacity) { rates.rate(of: $0) }
    }
}

/// What the runtime sets on a mail protocol's server settings: SMTP's certificate, and whether the port is the
/// implicit-TLS one.
protocol MailTLSSettings {
    var tls: TLSServerContext? { get set }
    var implicitTLS: Bool { get set }
}

extension IMAPServerConfiguration: MailTLSSettings {}
extension POP3ServerConfiguration: MailTLSSettings {}
