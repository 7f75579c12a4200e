import ClientAddress
import MailDoor
import SASL
import ServerTLS
import SocketServer

/// What a mail protocol's listener serves each connection, IMAP's (IMAPServer's `IMAPListener`) and POP3's
/// (POP3Server's `POP3Listener`): how one connection's session and driver are made, the lines a refused connection is
/// sent, the TLS in force, and how the driver carries out a request off the loop. ``MailService`` is written once over
/// it.
package protocol MailListener: Sendable {
    /// A connection's session and driver as ``MailConnectionMachine`` serves them.
    associatedtype Connection: ServedSession
    /// What a session asks its driver to do.
    associatedtype Request: Sendable
    /// The connection's side that needs the store (an actor).
    associatedtype Driver: Sendable
    /// What comes back to the session, on its loop.
    associatedtype Outcome: Sendable

    /// The line (CRLF added) a connection over a cap is sent before it closes.
    static var busyRefusal: String { get }
    /// The line a connection opened while the listener drains is sent before it closes.
    static var drainingRefusal: String { get }
    /// The certificate and key TLS presents; nil serves no TLS.
    var tls: TLSServerContext? { get }
    /// Whether TLS starts at the first byte (the implicit-TLS port) rather than at `STARTTLS`/`STLS`.
    var implicitTLS: Bool { get }
    /// How long a blocked write may wait before the connection is dropped.
    var writeTimeout: Duration { get }
    /// How long a TLS handshake after `STARTTLS`/`STLS` may take.
    var handshakeTimeout: Duration { get }

    /// The session of a connection from `peer` opened at monotonic time `now`, with its own driver.
    func connection(peer: String, now: UInt64) -> Connection
    /// Carries out `request` on `driver` in a Swift task; `completion` is called with each outcome (none for a request
    /// that is only told, as an IDLE's end).
    static func perform(_ request: Request, on driver: Driver, completion: @escaping @Sendable (Outcome) -> Void)

    /// How many requests a loop answers itself (``answerNow(_:on:)``) in one turn, counted with the loop's other short
    /// work (`EventLoop.takeShortWork`); the rest wait for its next turns. Default 8.
    var shortRequestsPerTurn: Int { get }
    /// Whether `request` is of a kind the connection's loop may answer itself, its driver idle: decided without a
    /// read. Default: none.
    static func mayAnswerNow(_ request: Request, on driver: Driver) -> Bool
    /// `request`'s outcome made at once on the connection's loop (short work, issue 84: a point read of the loop
    /// thread's own connection and what it renders); nil when it turns out not to be (the driver's task then carries it
    /// out, ``perform(_:on:completion:)``). Default: nil.
    static func answerNow(_ request: Request, on driver: Driver) -> Outcome?
}

extension MailListener {
    package var shortRequestsPerTurn: Int { 8 }
    package static func mayAnswerNow(_ request: Request, on driver: Driver) -> Bool { false }
    package static func answerNow(_ request: Request, on driver: Driver) -> Outcome? { nil }
}

extension MailListener {
    /// Sets what a connection from `peer` is offered for signing in, the mail doors' one policy: PLAIN, LOGIN and the
    /// OAuth mechanisms (``BearerSASL/mechanisms``); the upgrade to TLS where TLS is served and does not start at the
    /// first byte; secure at once on the implicit-TLS port; passwords and tokens without TLS only from a loopback peer,
    /// and only with `plaintextOnLoopback`.
    package func offerSignIn(to settings: inout some MailDoorSignInSettings, peer: String, plaintextOnLoopback: Bool) {
        settings.mechanisms = ["PLAIN", "LOGIN"] + BearerSASL.mechanisms
        settings.startTLSAvailable = tls != nil && !implicitTLS
        settings.isSecure = tls != nil && implicitTLS
        settings.allowsPlaintextAuthentication = plaintextOnLoopback && Self.isLoopback(peer)
    }

    /// `127.0.0.0/8`, `::1`, and IPv4-mapped loopback: where plaintext sign-in may be allowed.
    package static func isLoopback(_ peer: String) -> Bool {
        IPAddress(peer)?.isLoopback ?? false
    }
}

/// A mail protocol as a `StreamService`: one ``MailConnectionMachine`` of the listener's connection per connection
/// (under the TLS transport when the listener has a certificate); a job the listener answers at once
/// (``MailListener/answerNow(_:on:)``) is answered on the connection's loop, a bounded number a turn; any other runs
/// in a Swift task off the loops and its answer is posted back to the connection's loop.
package struct MailService<Listener: MailListener>: StreamService {
    package let listener: Listener
    /// Read as each connection opens: true answers it the listener's ``MailListener/drainingRefusal`` and closes it
    /// (the drain before a stop).
    package let draining: @Sendable () -> Bool

    /// The service of `listener`'s connections; `draining` is read as each one opens.
    package init(listener: Listener, draining: @escaping @Sendable () -> Bool) {
        self.listener = listener
        self.draining = draining
    }

    package func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        makeMachine(peer: peer, refusing: refusing, now: loop.clock())
    }

    /// The machine of a connection from `peer` opened at monotonic time `now`: plain, or under the TLS transport
    /// when the listener has a certificate (`STARTTLS`/`STLS` offered, or TLS from the first byte on the implicit
    /// port).
    package func makeMachine(peer: String, refusing: Bool, now: UInt64) -> any ConnectionStateMachine {
        let refusal = refusing ? Listener.busyRefusal : draining() ? Listener.drainingRefusal : nil
        let machine = MailConnectionMachine(
            listener.connection(peer: peer, now: now), refusal: refusal, writeTimeout: listener.writeTimeout,
            handshakeTimeout: listener.handshakeTimeout)
        guard let tls = listener.tls else { return machine }
        return TLSTransportMachine(session: machine, context: tls, implicit: listener.implicitTLS)
    }

    package func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard let job = job as? MailJob<Listener> else {
            preconditionFailure("MailService was given a job its machines did not make")
        }
        guard Listener.mayAnswerNow(job.request, on: job.driver) else { return performOffLoop(job, completion) }
        guard loop.takeShortWork(perTurn: listener.shortRequestsPerTurn) else {
            // The turn has run its share of short work: this waits until the loop has polled its other connections,
            // and is then answered at the start of the next turn whatever the share, before any work that turn reads
            // (a connection whose burst takes each turn's share so never keeps another's command waiting past one).
            return loop.nextTurn { self.answerNow(job, completion) }
        }
        answerNow(job, completion)
    }

    /// `job` answered on the calling loop when the listener can (``MailListener/answerNow(_:on:)``), else in its task.
    private func answerNow(
        _ job: MailJob<Listener>, _ completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard Listener.mayAnswerNow(job.request, on: job.driver),
            let outcome = Listener.answerNow(job.request, on: job.driver)
        else { return performOffLoop(job, completion) }
        completion(MailCompletion<Listener>(outcome))
    }

    private func performOffLoop(
        _ job: MailJob<Listener>, _ completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        Listener.perform(job.request, on: job.driver) { completion(MailCompletion<Listener>($0)) }
    }
}

/// What a connection's machine hands its service to do off the loop: one request of its session, carried out by the
/// connection's driver.
package final class MailJob<Listener: MailListener>: Sendable {
    package let request: Listener.Request
    package let driver: Listener.Driver

    package init(_ request: Listener.Request, driver: Listener.Driver) {
        self.request = request
        self.driver = driver
    }
}

/// What comes back to the machine, on its loop.
package final class MailCompletion<Listener: MailListener>: Sendable {
    package let outcome: Listener.Outcome

    package init(_ outcome: Listener.Outcome) {
        self.outcome = outcome
    }
}
