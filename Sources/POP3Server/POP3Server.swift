import Logging
import MailDoorServer
import MailStore
import POP3
import SocketServer

/// A POP3 server over the one mail store (issue 70): ``POP3Session`` on SocketServer's event loops, shared with
/// HTTP, SMTP and IMAP, with IMAP's connection machine (``MailConnectionMachine``), caps, PROXY protocol, drain and
/// graceful shutdown (`-ERR [SYS/TEMP] Server shutting down`, nothing marked deleted removed), and IMAP's sign-in
/// port. It serves the holder's INBOX.
///
/// ```swift
/// let pop3 = POP3Server(configuration: POP3ServerConfiguration(port: 1110), store: store, signIn: accounts,
///     group: group, logger: logger)
/// let port = try pop3.start()
/// // ...
/// await pop3.shutdown()
/// ```
public typealias POP3Server = MailServer<POP3ServerConfiguration>

extension MailServer where Configuration == POP3ServerConfiguration {
    /// Creates a server on a started, shared `group`; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - store: the mail store every door shares.
    ///   - signIn: checks a holder's credential, as IMAP's sign-in does.
    ///   - logger: failures at error level (the error's type only, never mail or credentials).
    ///   - draining: true while the instance drains before it stops: each new connection is answered
    ///     `-ERR [SYS/TEMP]` and closed; connections already open go on.
    public convenience init(
        configuration: POP3ServerConfiguration, store: MailStore, signIn: any MailDoorSignIn, group: EventLoopGroup,
        logger: Logger, draining: @escaping @Sendable () -> Bool = { false }
    ) {
        let listener = POP3Listener(configuration: configuration, store: store, signIn: signIn, logger: logger)
        let service = MailService(listener: listener, draining: draining)
        self.init(configuration: configuration, service: service, group: group, logger: logger)
    }
}
