import ClientAddress
import IMAP
import Logging
import MailStore
import ServerTLS
import SocketServer

/// IMAP as a `StreamService`: one ``MailConnectionMachine`` of an ``IMAPConnection`` per connection (under the TLS
/// transport when the listener has a certificate), with its own ``IMAPConnectionDriver``; each job runs in a Swift task
/// off the loops and its answer is posted back to the connection's loop.
struct IMAPService: StreamService {
    let configuration: IMAPServerConfiguration
    let store: MailStore
    let signIn: any IMAPSignIn
    let logger: Logger
    /// Read as each connection opens: true answers it `* BYE` and closes it (the drain before a stop).
    let draining: @Sendable () -> Bool
    /// The looks at selected mailboxes every session of the listener shares (``IMAPServer`` passes one bounded by its
    /// configuration; the default's bound is the configuration's default).
    var snapshots = IMAPSnapshotCache(capacity: IMAPServerConfiguration().snapshotCacheEntries)

    func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        makeMachine(peer: peer, refusing: refusing, now: loop.clock())
    }

    /// The machine of a connection from `peer` opened at monotonic time `now`: plain, or under the TLS transport
    /// when the listener has a certificate (STARTTLS offered, or TLS from the first byte on the implicit port).
    func makeMachine(peer: String, refusing: Bool, now: UInt64) -> any ConnectionStateMachine {
        var settings = IMAPSessionConfiguration()
        settings.limits = configuration.limits
        // imaptest's listext group fails on a flat name space of three fixed mailboxes: LIST-EXTENDED and LIST-STATUS
        // (which rides on its RETURN syntax) are answered but not advertised (docs/imap.md).
        settings.extensions.removeAll { $0 == "LIST-EXTENDED" || $0 == "LIST-STATUS" }
        settings.mechanisms = ["PLAIN", "LOGIN"] + BearerSASL.mechanisms
        settings.startTLSAvailable = configuration.tls != nil && !configuration.implicitTLS
        settings.isSecure = configuration.tls != nil && configuration.implicitTLS
        settings.allowsPlaintextAuthentication = configuration.plaintextOnLoopback && Self.isLoopback(peer)
        let session = IMAPSession(configuration: settings, now: now)
        let driver = IMAPConnectionDriver(
            store: store, snapshots: snapshots, signIn: signIn, client: peer, now: configuration.wallClock,
            logger: logger)
        let refusal = refusing ? "* BYE Too many connections, try later" : draining() ? "* BYE Server shutting down" : nil
        let machine = MailConnectionMachine(
            IMAPConnection(session: session, driver: driver), refusal: refusal,
            writeTimeout: configuration.writeTimeout, handshakeTimeout: configuration.limits.unauthenticatedTimeout)
        guard let tls = configuration.tls else { return machine }
        return TLSTransportMachine(session: machine, context: tls, implicit: configuration.implicitTLS)
    }

    func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard let job = job as? IMAPJob else {
            preconditionFailure("IMAPService was given a job its machines did not make")
        }
        let driver = job.driver
        switch job.request {
        case .login(let username, let password):
            Task { completion(IMAPCompletion(.authenticated(await driver.login(username: username, password: password)))) }
        case .authenticate(let step):
            Task { completion(IMAPCompletion(.authenticated(await driver.authenticate(step)))) }
        case .run(let command, _):
            Task { completion(IMAPCompletion(.completed(await driver.run(command)))) }
        case .idleStarted:
            Task { await driver.startIdle { completion(IMAPCompletion(.notices($0))) } }
        case .idleEnded:
            Task { await driver.endIdle() }
        case .startTLS:
            return  // carried out by the connection's machine (its TLS transport), never made a job
        }
    }

    /// `127.0.0.0/8`, `::1`, and IPv4-mapped loopback.
    static func isLoopback(_ peer: String) -> Bool {
        guard let address = IPAddress(peer) else { return false }
        return loopback.contains { $0.contains(address) }
    }

    private static let loopback = ["127.0.0.0/8", "::1/128", "::ffff:127.0.0.0/104"].compactMap(IPNetwork.init)
}
