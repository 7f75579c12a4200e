import ServerTLS
import SocketServer

/// One mail connection on the event loop, IMAP's or POP3's: a ``ServedSession``'s bytes and requests over
/// SocketServer's ``ConnectionLifecycle`` (output with back-pressure, the peer's end, the lingering close). The
/// session's requests become jobs for the service, which runs them on the connection's driver off the loop; their
/// answers come back as completions. Reading stops while an awaited job runs (the session reads no further command
/// then) and while the output is above its high-water mark. On a listener with a certificate it runs under ServerTLS's
/// ``TLSTransportMachine`` (``wantsTLS`` once the session answered `STARTTLS`/`STLS`; from the first byte on an
/// implicit-TLS port). Not `Sendable`: used on its connection's loop only.
struct MailConnectionMachine<Served: ServedSession>: TLSUpgradableMachine, LifecycleConnectionMachine {
    private var served: Served
    private let refusal: String?
    private let writeTimeout: UInt64
    var lifecycle = ConnectionLifecycle()
    /// An awaited job is out: a sign-in check or a command (an IDLE's watch is not counted).
    private var working = false
    private var sessionActions: [Served.Session.Action] = []
    /// The job for the next part of an answer given in parts, held until the output drains to its mark.
    private var nextPart: (any AnyObject & Sendable)?
    private var lastWrite: UInt64 = 0
    /// The session answered `STARTTLS`/`STLS`: the transport starts TLS and the socket is read for the handshake.
    private(set) var wantsTLS = false
    /// The handshake completed; the session is told at the next event (``tlsEstablished()`` has no clock).
    private var tlsCompleted = false
    /// When the session asked for TLS: a handshake not done within ``handshakeTimeout`` closes the connection.
    private var tlsStarted: UInt64 = 0
    private let handshakeTimeout: UInt64

    /// - Parameters:
    ///   - refusal: the line (CRLF added) a refused connection (over a cap, draining) is sent before it closes; nil
    ///     to serve it.
    ///   - handshakeTimeout: how long a TLS handshake after `STARTTLS`/`STLS` may take.
    init(_ served: Served, refusal: String?, writeTimeout: Duration, handshakeTimeout: Duration) {
        self.served = served
        self.refusal = refusal
        self.writeTimeout = ConnectionTimeouts.nanoseconds(writeTimeout)
        self.handshakeTimeout = ConnectionTimeouts.nanoseconds(handshakeTimeout)
    }

    mutating func tlsEstablished() {
        wantsTLS = false
        tlsCompleted = true
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !lifecycle.isClosed else { return }
        sessionActions.removeAll(keepingCapacity: true)
        if tlsCompleted {
            tlsCompleted = false
            served.session.tlsEstablished(now: now, into: &sessionActions)
        }
        switch event {
        case .opened:
            lastWrite = now
            if let refusal {
                lifecycle.output.append(Array("\(refusal)\r\n".utf8))
                lifecycle.closeAfterOutput()
            } else {
                served.session.start(into: &sessionActions)
            }
        case .bytesRead(let bytes):
            if lifecycle.stage == .open { served.session.receive(bytes, now: now, into: &sessionActions) }
        case .readEOF:
            if lifecycle.peerDidClose(into: &actions) { return close(into: &actions) }
            if lifecycle.stage == .open && !working && lifecycle.output.isEmpty { return close(into: &actions) }
        case .wrote(let count):
            lastWrite = now
            if lifecycle.didWrite(count) {
                if lifecycle.stage == .closingAfterOutput {
                    lifecycle.linger(now: now, into: &actions)
                    if lifecycle.isClosed { return close(into: &actions) }
                } else if lifecycle.peerClosed && !working && lifecycle.stage == .open {
                    return close(into: &actions)
                }
            }
            goOnIfOutputAllows(now: now, into: &actions)
        case .writeBlocked:
            if lifecycle.didBlock() { lastWrite = now }
        case .writable:
            lifecycle.becameWritable()
        case .timerFired:
            if timerFiredWhileLingering(now: now, into: &actions) { return }
            if lifecycle.writeBlocked || lifecycle.stage != .open {
                if now >= lastWrite &+ writeTimeout { return close(into: &actions) }
            } else if wantsTLS {
                if now >= tlsStarted &+ handshakeTimeout { return close(into: &actions) }
            } else {
                served.session.timerFired(now: now, into: &sessionActions)
            }
        case .completed(let value):
            let answer = served.complete(value, now: now, into: &sessionActions)
            switch answer {
            case nil:
                return close(into: &actions)
            case .notice?:
                break
            case .answered?, .part?:
                // The answer (or its part) goes to the output first; what comes after it (the commands pipelined
                // behind it, the answer's next part) only while the output is under its high-water mark, else at the
                // `.wrote` that brings it there. A client that reads nothing so holds one answer, never fifty.
                if case .part(let next)? = answer { nextPart = next } else { working = false }
                apply(now: now, into: &actions)
                sessionActions.removeAll(keepingCapacity: true)
                goOnIfOutputAllows(now: now, into: &actions)
            }
        case .shutdown:
            if lifecycle.stage == .open { served.session.shutdown(into: &sessionActions) }
        case .reset:
            return close(into: &actions)
        }
        apply(now: now, into: &actions)
        guard !lifecycle.isClosed else { return }
        if lifecycle.stage == .closingAfterOutput && lifecycle.output.isEmpty {
            lifecycle.linger(now: now, into: &actions)
            if lifecycle.isClosed { return close(into: &actions) }
        }
        // During the handshake the socket is read for the transport's records; the session reads nothing.
        let read = lifecycle.stage == .open && !lifecycle.peerClosed && !working
            && (served.session.wantsInput || wantsTLS) && lifecycle.takesInput
        var deadline: UInt64?
        if lifecycle.writeBlocked || lifecycle.stage == .closingAfterOutput {
            deadline = lastWrite &+ writeTimeout
        } else if wantsTLS {
            deadline = tlsStarted &+ handshakeTimeout
        } else if lifecycle.stage == .open {
            deadline = served.session.deadline
        }
        lifecycle.finishTurn(after: event, read: read, deadline: deadline, into: &actions)
    }

    /// Carries out the session's actions: bytes to the output, TLS asked of the transport, requests as jobs, a close
    /// after the output.
    private mutating func apply(now: UInt64, into actions: inout [ConnectionAction]) {
        for action in sessionActions {
            switch served.effect(of: action) {
            case .send(let bytes):
                lifecycle.output.append(bytes)
            case .job(let job, let awaited):
                if awaited { working = true }
                actions.append(.perform(job))
            case .startTLS:
                wantsTLS = true
                tlsStarted = now
            case .closeAfterOutput:
                lifecycle.closeAfterOutput()
            case .none:
                break
            }
        }
    }

    /// What follows the last answer, when the output is under its high-water mark: the job for the answer's next part
    /// (to the service), else the commands waiting behind it (read by the session).
    private mutating func goOnIfOutputAllows(now: UInt64, into actions: inout [ConnectionAction]) {
        guard lifecycle.stage == .open && lifecycle.takesInput else { return }
        if let next = nextPart {
            nextPart = nil
            actions.append(.perform(next))
        } else if !working && served.session.hasBufferedInput {
            served.session.resume(now: now, into: &sessionActions)
        }
    }

    mutating func close(into actions: inout [ConnectionAction]) {
        if !lifecycle.isClosed { lifecycle.close(into: &actions) }
        served.connectionClosed()
    }
}
