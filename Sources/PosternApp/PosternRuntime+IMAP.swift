import BrowserPages
import IMAPServer
import Logging
import SocketServer

/// The IMAP listener's part of the runtime (issue 70): its server over the one mail store, on the loops HTTP and SMTP
/// share, signed in through the Mail.td surface.
extension PosternRuntime {
    /// The IMAP listener's service, on `socket` bound beforehand.
    static func imapService(
        _ configuration: PosternConfiguration, on socket: ListeningSocket, context: SurfaceContext,
        draining: DrainFlag, group: EventLoopGroup
    ) throws -> RuntimeService {
        let audit = Surfaces.auditTrail(database: context.database, clock: context.clock, logger: context.logger)
        let surface = try Surfaces.mailboxService(
            configuration, issuer: context.identity.issuer, keys: context.keys, database: context.database,
            mail: context.mail.store, ledger: context.ledger, pool: context.pool, resolver: context.resolver,
            customDomains: context.mail.domains, clock: context.clock, logger: context.logger, audit: audit)
        let signIn = MailboxIMAPSignIn(
            surface: surface, directory: context.mail.directory,
            throttle: SignInThrottle(database: context.database, backoff: configuration.webInbox.backoff), audit: audit,
            clock: context.clock)
        let settings = configuration.imap.serverConfiguration(
            listenerHost: configuration.listener.host, trustedProxies: configuration.listener.trustedProxies,
            wallClock: context.clock)
        let server = IMAPServer(
            configuration: settings, store: context.mail.store,
            signIn: signIn, group: group,
            logger: context.logger, draining: { draining.isSet })
        return .listening("IMAP", on: socket, group: group) {
            _ = try server.start(on: $0)
        } stop: {
            await server.shutdown()
        }
    }
}
