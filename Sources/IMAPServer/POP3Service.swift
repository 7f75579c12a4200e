import IMAP
import Logging
import MailStore
import ServerTLS
import SocketServer

/// POP3 as a `StreamService`: one ``MailConnectionMachine`` of a ``POP3Connection`` per connection (under the TLS
/// transport when the listener has a certificate: `STLS` offered, or TLS from the first byte on the POP3S port), with
/// its own
/// ``POP3ConnectionDriver``; each job runs in a Swift task off the loops and its answer is posted back to the
/// connection's loop.
struct POP3Service: StreamService {
    let configuration: POP3ServerConfiguration
    let store: MailStore
    let signIn: any IMAPSignIn
    let logger: Logger
    /// Read as each connection opens: true answers it `-ERR [SYS/TEMP]` and closes it (the drain before a stop).
    let draining: @Sendable () -> Bool

    func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        makeMachine(peer: peer, refusing: refusing, now: loop.clock())
    }

    /// The machine of a connection from `peer` opened at monotonic time `now`: plain, or under the TLS transport
    /// when the listener has a certificate (`STLS` offered, or TLS from the first byte on the implicit port).
    func makeMachine(peer: String, refusing: Bool, now: UInt64) -> any ConnectionStateMachine {
        var settings = POP3SessionConfiguration()
        settings.limits = configuration.limits
        settings.mechanisms = ["PLAIN", "LOGIN"] + BearerSASL.mechanisms
        settings.startTLSAvailable = configuration.tls != nil && !configuration.implicitTLS
        settings.isSecure = configuration.tls != nil && configuration.implicitTLS
        settings.allowsPlaintextAuthentication = configuration.plaintextOnLoopback && IMAPService.isLoopback(peer)
        let session = POP3Session(configuration: settings, now: now)
        let driver = POP3ConnectionDriver(
            store: store, signIn: signIn, client: peer, now: configuration.wallClock, logger: logger)
        let refusal =
            refusing
            ? "-ERR [SYS/TEMP] Too many connections, try later" : draining() ? "-ERR [SYS/TEMP] Server shutting down" : nil
        let machine = MailConnectionMachine(
            POP3Connection(session: session, driver: driver), refusal: refusal,
            writeTimeout: configuration.writeTimeout, handshakeTimeout: configuration.tlsHandshakeTimeout)
        guard let tls = configuration.tls else { return machine }
        return TLSTransportMachine(session: machine, context: tls, implicit: configuration.implicitTLS)
    }

    func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard let job = job as? POP3Job else {
            preconditionFailure("POP3Service was given a job its machines did not make")
        }
        let driver = job.driver
        switch job.request {
        case .login(let username, let password):
            Task { completion(POP3Completion(.authenticated(await driver.login(username: username, password: password)))) }
        case .authenticate(let step):
            Task { completion(POP3Completion(.authenticated(await driver.authenticate(step)))) }
        case .retrieve(let message):
            Task { completion(POP3Completion(.retrieved(await driver.retrieve(message)))) }
        case .commitDeletions(let messages):
            Task { completion(POP3Completion(.committed(await driver.commitDeletions(messages)))) }
        case .startTLS:
            return  // carried out by the connection's machine (its TLS transport), never made a job
        }
    }
}
