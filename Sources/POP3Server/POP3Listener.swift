import Logging
import MailDoorServer
import MailStore
import POP3
import ServerTLS

/// POP3 as its listener serves each connection: a ``POP3Connection`` of ``POP3Session`` and its own
/// ``POP3ConnectionDriver`` (under the TLS transport when the listener has a certificate: `STLS` offered, or TLS from
/// the first byte on the POP3S port).
struct POP3Listener: MailListener {
    let configuration: POP3ServerConfiguration
    let store: MailStore
    let signIn: any MailDoorSignIn
    let logger: Logger

    static let busyRefusal = "-ERR [SYS/TEMP] Too many connections, try later"
    static let drainingRefusal = "-ERR [SYS/TEMP] Server shutting down"
    var tls: TLSServerContext? { configuration.tls }
    var implicitTLS: Bool { configuration.implicitTLS }
    var writeTimeout: Duration { configuration.writeTimeout }
    var handshakeTimeout: Duration { configuration.tlsHandshakeTimeout }

    func connection(peer: String, now: UInt64) -> POP3Connection {
        var settings = POP3SessionConfiguration()
        settings.limits = configuration.limits
        offerSignIn(to: &settings, peer: peer, plaintextOnLoopback: configuration.plaintextOnLoopback)
        let driver = POP3ConnectionDriver(
            store: store, signIn: signIn, client: peer, now: configuration.wallClock, logger: logger)
        return POP3Connection(session: POP3Session(configuration: settings, now: now), driver: driver)
    }

    /// What comes back to a POP3 session.
    enum Outcome: Sendable {
        /// The answer to `PASS` or an `AUTH` step.
        case authenticated(POP3AuthenticationOutcome)
        /// A message's bytes for `RETR`/`TOP`; nil when it is gone.
        case retrieved([UInt8]?)
        /// Whether `QUIT` removed every message marked deleted.
        case committed(Bool)
        /// The session's credential no longer holds (``MailSessionStanding``): `-ERR [AUTH]` and close.
        case ended(MailSessionEnd)
    }

    static func perform(
        _ request: POP3Request, on driver: POP3ConnectionDriver, completion: @escaping @Sendable (Outcome) -> Void
    ) {
        switch request {
        case .login(let username, let password):
            Task { completion(.authenticated(await driver.login(username: username, password: password))) }
        case .authenticate(let step):
            Task { completion(.authenticated(await driver.authenticate(step))) }
        case .retrieve(let message):
            Task {
                if let end = await driver.ended(writing: false) { return completion(.ended(end)) }
                completion(.retrieved(await driver.retrieve(message)))
            }
        case .commitDeletions(let messages):
            Task {
                if let end = await driver.ended(writing: true) { return completion(.ended(end)) }
                completion(.committed(await driver.commitDeletions(messages)))
            }
        case .startTLS:
            return  // carried out by the connection's machine (its TLS transport), never made a job
        }
    }
}
