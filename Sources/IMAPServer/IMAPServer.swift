import Logging
import MailDoorServer
import MailStore
import SocketServer

/// An IMAP server over the one mail store: IMAP's session machine on SocketServer's event loops, shared with HTTP
/// and SMTP, with the same connection caps, per-client cap, PROXY protocol and graceful shutdown as SMTP.
///
/// ```swift
/// let imap = IMAPServer(configuration: IMAPServerConfiguration(port: 1143), store: store, signIn: accounts,
///     group: group, logger: logger)
/// let port = try imap.start()
/// // ...
/// await imap.shutdown()   // then the group's owner stops the loops
/// ```
public typealias IMAPServer = MailServer<IMAPServerConfiguration>

extension MailServer where Configuration == IMAPServerConfiguration {
    /// Creates a server on a started, shared `group`; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - store: the mail store every door shares.
    ///   - signIn: checks a holder's credential (the composition root's port over the surfaces that own them).
    ///   - logger: failures at error level (the error's type only, never mail or credentials).
    ///   - draining: true while the instance drains before it stops: each new connection is answered `* BYE` and
    ///     closed; connections already open go on.
    public convenience init(
        configuration: IMAPServerConfiguration, store: MailStore, signIn: any MailDoorSignIn, group: EventLoopGroup,
        logger: Logger, draining: @escaping @Sendable () -> Bool = { false }
    ) {
        let service = IMAPService(
            configuration: configuration, store: store, signIn: signIn, logger: logger, draining: draining)
        self.init(configuration: configuration, service: service, group: group, logger: logger)
    }
}
