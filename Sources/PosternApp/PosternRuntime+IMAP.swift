import BufferBudget
import IMAPServer
import Logging
import MailSignIn
import POP3Server
import ServerTLS
import SocketServer

/// The IMAP and POP3 listeners' part of the runtime (issue 70): their servers over the one mail store, on the loops
/// HTTP and SMTP share, signed in through the one owner of mail credentials, with SMTP's certificate for TLS.
extension PosternRuntime {
    /// The IMAP and POP3 listeners' services, on the sockets `build` bound: IMAP with `STARTTLS`, IMAPS (the
    /// `POSTERN_IMAPS_PORT` listener) with TLS from the first byte, POP3 (the INBOX to the holders IMAP signs in) with
    /// `STLS` and POP3S (`POSTERN_POP3S_PORT`) with TLS from the first byte, all with SMTP's certificate `tls`; both
    /// sign in through `signIn`, the runtime's one owner of mail credentials.
    static func mailListeners(
        _ configuration: PosternConfiguration, sockets: ListenerSockets, tls: TLSServerContext,
        context: SurfaceContext, signIn owner: MailSignIn, buffers: BufferBudget, draining: DrainFlag,
        group: EventLoopGroup
    ) throws -> [RuntimeService] {
        let (host, proxies) = (configuration.listener.host, configuration.listener.trustedProxies)
        let (store, logger) = (context.mail.store, context.logger)
        var services: [RuntimeService] = []
        if sockets[.imap] != nil {
            let signIn = MailSignInPort(owner: owner, door: .imap)
            var imap: IMAPServerConfiguration = configuration.imap.listener.serverConfiguration(
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
            let signIn = MailSignInPort(owner: owner, door: .pop3)
            let pop3: POP3ServerConfiguration = configuration.pop3.listener.serverConfiguration(
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
    private static func serving<Settings: MailDoorServerSettings>(
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
}
