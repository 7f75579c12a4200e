import IMAP
import ServerTLS
import SocketServer

/// One IMAP connection on the event loop: ``IMAPSession``'s bytes and requests over SocketServer's
/// ``ConnectionLifecycle`` (output with back-pressure, the peer's end, the lingering close). The session's requests
/// become jobs for ``IMAPService``, which runs them on the connection's ``IMAPConnectionDriver`` off the loop; their
/// answers come back as completions. Reading stops while a job runs (the session reads no further command then) and
/// while the output is above its high-water mark. On a listener with a certificate it runs under ServerTLS's
/// ``TLSTransportMachine`` (``wantsTLS`` after `STARTTLS`'s `OK`; from the first byte on the implicit-TLS port). Not
/// `Sendable`: used on its connection's loop only.
struct IMAPConnectionMachine: TLSUpgradableMachine {
    private var session: IMAPSession
    private let driver: IMAPConnectionDriver
    private let refusal: String?
    private let writeTimeout: UInt64
    private var lifecycle = ConnectionLifecycle()
    /// A job is out: a sign-in check or a command (an IDLE's watch is not counted).
    private var working = false
    /// Changes seen by an IDLE that ended before they arrived: sent before the next command's answer.
    private var heldNotices: [IMAPUntaggedResponse] = []
    private var sessionActions: [IMAPSession.Action] = []
    private var lastWrite: UInt64 = 0
    /// `STARTTLS` was answered `OK`: the transport starts TLS and the socket is read for the handshake.
    private(set) var wantsTLS = false
    /// The handshake completed; the session is told at the next event (``tlsEstablished()`` has no clock).
    private var tlsCompleted = false
    /// When `STARTTLS` was answered: a handshake not done within ``handshakeTimeout`` closes the connection.
    private var tlsStarted: UInt64 = 0
    private let handshakeTimeout: UInt64

    /// - Parameters:
    ///   - refusal: the `BYE` text of a connection refused (over a cap, draining); nil to serve it.
    ///   - handshakeTimeout: how long a TLS handshake after `STARTTLS` may take.
    init(
        session: IMAPSession, driver: IMAPConnectionDriver, refusal: String?, writeTimeout: Duration,
        handshakeTimeout: Duration
    ) {
        self.session = session
        self.driver = driver
        self.refusal = refusal
        self.writeTimeout = ConnectionTimeouts.nanoseconds(writeTimeout)
        self.handshakeTimeout = ConnectionTimeouts.nanoseconds(handshakeTimeout)
    }

    mutating func tlsEstablished() {
        wantsTLS = false
        tlsCompleted = true
    }

    var hasUnsentOutput: Bool { !lifecycle.output.isEmpty }

    func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try lifecycle.output.withUnsentBytes(body)
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !lifecycle.isClosed else { return }
        sessionActions.removeAll(keepingCapacity: true)
        if tlsCompleted {
            tlsCompleted = false
            session.tlsEstablished(now: now, into: &sessionActions)
        }
        switch event {
        case .opened:
            lastWrite = now
            if let refusal {
                lifecycle.output.append(Array("* BYE \(refusal)\r\n".utf8))
                lifecycle.closeAfterOutput()
            } else {
                session.start(into: &sessionActions)
            }
        case .bytesRead(let bytes):
            if lifecycle.stage == .open { session.receive(bytes, now: now, into: &sessionActions) }
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
            if lifecycle.stage == .open && session.hasBufferedInput && lifecycle.takesInput {
                session.resume(now: now, into: &sessionActions)
            }
        case .writeBlocked:
            if lifecycle.didBlock() { lastWrite = now }
        case .writable:
            lifecycle.becameWritable()
        case .timerFired:
            if lifecycle.lingerTimerFired(now: now, into: &actions) {
                if lifecycle.isClosed { close(into: &actions) }
                return
            }
            if lifecycle.writeBlocked || lifecycle.stage != .open {
                if now >= lastWrite &+ writeTimeout { return close(into: &actions) }
            } else if wantsTLS {
                if now >= tlsStarted &+ handshakeTimeout { return close(into: &actions) }
            } else {
                session.timerFired(now: now, into: &sessionActions)
            }
        case .completed(let value):
            guard let completion = value as? IMAPCompletion else { return close(into: &actions) }
            complete(completion.outcome, now: now)
        case .shutdown:
            if lifecycle.stage == .open { session.shutdown(into: &sessionActions) }
        case .reset:
            return close(into: &actions)
        }
        apply(sessionActions, now: now, into: &actions)
        guard !lifecycle.isClosed else { return }
        if lifecycle.stage == .closingAfterOutput && lifecycle.output.isEmpty {
            lifecycle.linger(now: now, into: &actions)
            if lifecycle.isClosed { return close(into: &actions) }
        }
        // During the handshake the socket is read for the transport's records; the session reads nothing.
        let read = lifecycle.stage == .open && !lifecycle.peerClosed && !working
            && (session.wantsInput || wantsTLS) && lifecycle.takesInput
        var deadline: UInt64?
        if lifecycle.writeBlocked || lifecycle.stage == .closingAfterOutput {
            deadline = lastWrite &+ writeTimeout
        } else if wantsTLS {
            deadline = tlsStarted &+ handshakeTimeout
        } else if lifecycle.stage == .open {
            deadline = session.deadline
        }
        lifecycle.finishTurn(after: event, read: read, deadline: deadline, into: &actions)
    }

    private mutating func complete(_ outcome: IMAPCompletion.Outcome, now: UInt64) {
        switch outcome {
        case .authenticated(let result):
            working = false
            session.authenticated(result, now: now, into: &sessionActions)
        case .completed(var result):
            working = false
            if !heldNotices.isEmpty {
                result.responses = heldNotices + result.responses
                heldNotices = []
            }
            session.completed(result, now: now, into: &sessionActions)
        case .notices(let responses):
            if !session.notify(responses, into: &sessionActions) { heldNotices += responses }
        }
    }

    /// Carries out the session's actions: bytes to the output, requests as jobs (IDLE's end at once), a close after
    /// the output.
    private mutating func apply(
        _ sessionActions: [IMAPSession.Action], now: UInt64, into actions: inout [ConnectionAction]
    ) {
        for action in sessionActions {
            switch action {
            case .send(let bytes):
                lifecycle.output.append(bytes)
            case .perform(.startTLS):
                wantsTLS = true
                tlsStarted = now
            case .perform(.idleEnded):
                let driver = self.driver
                Task { await driver.endIdle() }
            case .perform(let request):
                switch request {
                case .login, .authenticate, .run: working = true
                default: break
                }
                actions.append(.perform(IMAPJob(request, driver: driver)))
            case .closeConnection:
                lifecycle.closeAfterOutput()
            }
        }
    }

    private mutating func close(into actions: inout [ConnectionAction]) {
        if !lifecycle.isClosed { lifecycle.close(into: &actions) }
        session.connectionClosed()
        let driver = self.driver
        Task { await driver.endIdle() }
    }
}
