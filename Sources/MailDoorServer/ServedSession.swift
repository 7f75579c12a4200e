import SocketServer

/// A pure mail session machine as a connection drives it: IMAP's `IMAPSession` and POP3's `POP3Session` have these
/// members of their own (each serving target declares the conformance); ``ServedSession`` forwards to them.
package protocol SessionMachine {
    associatedtype Action

    var wantsInput: Bool { get }
    var hasBufferedInput: Bool { get }
    var deadline: UInt64? { get }
    mutating func start(into actions: inout [Action])
    mutating func receive(_ bytes: some Collection<UInt8>, now: UInt64, into actions: inout [Action])
    mutating func resume(now: UInt64, into actions: inout [Action])
    mutating func timerFired(now: UInt64, into actions: inout [Action])
    mutating func shutdown(into actions: inout [Action])
    mutating func tlsEstablished(now: UInt64, into actions: inout [Action])
    mutating func connectionClosed()
}

/// A mail protocol's session as its connection serves it (IMAP's, POP3's): the pure session machine and the
/// connection's driver together, seen by ``MailConnectionMachine``, which owns the socket's side once for both.
/// Conformers are structs, one in each serving target (IMAPServer's `IMAPConnection`, POP3Server's `POP3Connection`).
package protocol ServedSession {
    associatedtype Session: SessionMachine

    /// The pure machine; the connection's events go to it (the members below, forwarded by default).
    var session: Session { get set }

    /// A job's completion, as the service posted it: what it was to the job the machine waited for (nil for a value
    /// this session never asked for, which closes the connection).
    mutating func complete(_ value: any AnyObject & Sendable, now: UInt64, into actions: inout [Session.Action])
        -> ServedAnswer?

    /// What `action` asks of the connection.
    func effect(of action: Session.Action) -> ServedEffect

    /// The connection is gone: the session stops, and the driver's watches end.
    mutating func connectionClosed()
}

extension ServedSession {
    package mutating func connectionClosed() { session.connectionClosed() }
}

/// What a completion was to the job the machine waited for.
package enum ServedAnswer {
    /// Its answer: the session reads commands again.
    case answered
    /// One part of its answer: `next`, the job that asks the driver for the next part, is handed to the service once
    /// the output has drained.
    case part(next: any AnyObject & Sendable)
    /// News that came on its own, as an IDLE's: the job waited for is still out.
    case notice
}

/// What one session action asks of its connection.
package enum ServedEffect {
    case send([UInt8])
    /// Hand this job to the service; `awaited` when the session reads nothing more until it is answered.
    case job(any AnyObject & Sendable, awaited: Bool)
    /// The session answered `STARTTLS`/`STLS`: the transport starts TLS after what was queued.
    case startTLS
    /// Close once everything asked to be sent is written.
    case closeAfterOutput
    /// Nothing for the socket (the session's driver was told directly).
    case none
}
