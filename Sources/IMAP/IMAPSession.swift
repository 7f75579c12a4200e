import MailDoor

/// One IMAP connection's protocol (RFC 9051 §3, §5, §6), as a pure state machine: the client's bytes, the driver's
/// answers, the clock and a shutdown in; bytes to send, requests for the driver and "close the connection" out. No
/// socket, no store, no clock of its own: the server's connection feeds it from one thread, and tests drive it by
/// hand and byte by byte.
///
/// The rules, in order of the connection's life:
/// - Greeting: ``start(into:)`` sends `* OK [CAPABILITY ...]`. The capabilities are `IMAP4rev1 IMAP4rev2`, the
///   literal extension the limits allow, the configured extensions, and before sign-in `STARTTLS` (when offered),
///   `LOGINDISABLED` (without TLS, unless plaintext is allowed) or one `AUTH=` per mechanism.
/// - Input: commands are read one at a time, each only once the one before it is answered (so that the lines of
///   an `AUTHENTICATE` or an `IDLE`, and bytes after `STARTTLS`, are never read as commands); after a driver's
///   answer the commands pipelined behind it wait for ``resume(now:into:)``, which the connection calls once its
///   output is written down to its bound (a client that reads nothing holds one answer, not one per command). At most
///   ``IMAPLimits/maxPipelinedCommands`` are answered per turn; the rest waits (``hasBufferedInput``, ``resume``),
///   at most ``IMAPLimits/maxBufferedInputBytes`` of it (``wantsInput``).
/// - Framing: as ``IMAPCommandFramer`` reads it; a refused command gets `BAD` with the refusal's code and text,
///   one that cannot be skipped `BAD` then `BYE`. A synchronizing literal gets `+ Ready for literal data`.
/// - Parsing and state: an unparsable command gets `BAD` (tagged when the tag was readable), an unknown one
///   `BAD Unknown command`, one not allowed in the present state `BAD` (RFC 9051 §3).
/// - Any state: `CAPABILITY` and `LOGOUT` (`* BYE`, `OK`, then close) are answered here; `NOOP` too before sign-in.
/// - Not authenticated: `STARTTLS` (when offered and not yet secure) answers `OK`, drops whatever input followed
///   it, asks the driver for the handshake and waits for ``tlsEstablished(now:into:)``. `LOGIN` and `AUTHENTICATE`
///   without TLS are refused `NO [PRIVACYREQUIRED]` unless plaintext is allowed; an unoffered mechanism gets
///   `NO [CANNOT]`. `AUTHENTICATE` takes its initial response (SASL-IR) or sends an empty challenge; each client
///   line goes to the driver, `*` cancels (`BAD`), a line that is not base64 ends it (`BAD`). Success:
///   `OK [CAPABILITY ...]` and the authenticated state; failure: `NO` with the driver's code (after RFC 7628's
///   error challenge and the client's answer to it, for OAUTHBEARER).
/// - Authenticated and selected: `ENABLE` is answered here (`IMAP4rev2` is the one extension it enables, once per
///   session; other names are ignored, as RFC 5161 asks; later strings go quoted UTF-8); `IDLE` sends `+ idling` and holds until `DONE` (another line ends it with `BAD`); the rest goes
///   to the driver, whose result is sent as it is. A `SELECT` or `EXAMINE` answered `OK` selects the mailbox
///   (read-only for `EXAMINE` or `[READ-ONLY]`), one answered otherwise leaves none selected; `CLOSE` and `UNSELECT`
///   answered `OK` deselect. Selecting while selected sends `* OK [CLOSED]` first (RFC 9051 §7.1).
/// - Silence: a client from which nothing arrives for ``IMAPLimits/autologout`` (``IMAPLimits/unauthenticatedTimeout``
///   before sign-in) gets `* BYE Autologout` and the connection closes; time the driver spends on a command does not
///   count. Re-issuing `IDLE` counts as activity.
/// - Shutdown: ``shutdown(into:)`` sends `* BYE` and closes.
public struct IMAPSession: Sendable, MailDoorSession {
    /// What the session asks its connection to do, in order.
    public enum Action: Sendable, Equatable {
        /// Send these bytes after everything asked for before.
        case send([UInt8])
        /// Carry out a request and answer it through the matching call.
        case perform(IMAPRequest)
        /// Close the connection once everything asked to be sent has been written. Nothing follows.
        case closeConnection
    }

    /// Where the reading of commands stands.
    enum Phase: Equatable {
        /// The next bytes are a command.
        case reading
        /// The driver is working on the command under `tag`; nothing more is read.
        case awaitingDriver(tag: String, Pending)
        /// The next line is the client's message of an `AUTHENTICATE` exchange.
        case authenticating(tag: String, mechanism: String)
        /// The next line answers an error challenge; the `NO` with `code` follows it.
        case failingAuthentication(tag: String, code: IMAPResponseCode)
        /// `IDLE`: the next line should be `DONE`.
        case idling(tag: String)
        /// `STARTTLS` accepted: waiting for the handshake.
        case startingTLS
        /// The connection is to be closed.
        case closed
    }

    /// Where the conversation stands, for the reading and the clock (``MailDoorSession``).
    package var stage: MailDoorStage {
        switch phase {
        case .reading: .readingCommands
        case .authenticating, .failingAuthentication, .idling: .exchanging
        case .awaitingDriver, .startingTLS: .waiting
        case .closed: .closed
        }
    }

    /// What the driver is working on.
    enum Pending: Equatable {
        case login
        case authenticate(mechanism: String)
        case command(IMAPCommandKind)
    }

    public let configuration: IMAPSessionConfiguration
    /// The session's state (RFC 9051 §3).
    public internal(set) var state = IMAPSessionStateName.notAuthenticated
    /// The selected mailbox, in the selected state.
    public internal(set) var selection: IMAPSelection?
    /// The signed-in user, as the driver named them.
    public internal(set) var user: String?
    /// The extensions the client enabled (`IMAP4REV2`).
    public internal(set) var enabled: Set<String> = []
    /// Whether the connection is TLS.
    public internal(set) var isSecure: Bool
    var phase = Phase.reading
    package var input: SessionInput<IMAPCommandFramer>
    var encoder = IMAPResponseEncoder()
    /// When the client was last heard from (or the driver last answered), in monotonic nanoseconds.
    package var lastHeard: UInt64

    /// The session of a connection accepted at `now` (monotonic nanoseconds).
    public init(configuration: IMAPSessionConfiguration, now: UInt64) {
        self.configuration = configuration
        input = SessionInput(
            framer: IMAPCommandFramer(limits: configuration.limits.unauthenticated, budget: configuration.buffers),
            maxWaitingBytes: configuration.limits.maxBufferedInputBytes)
        isSecure = configuration.isSecure
        lastHeard = now
    }

    /// How long the client may stay silent: ``IMAPLimits/unauthenticatedTimeout`` before sign-in, then
    /// ``IMAPLimits/autologout`` (the reading and the clock are ``MailDoorSession``'s).
    package var timeout: Duration {
        state == .notAuthenticated ? configuration.limits.unauthenticatedTimeout : configuration.limits.autologout
    }

    /// The capabilities in the present state.
    public var capabilities: [String] {
        var names = ["IMAP4rev1", "IMAP4rev2", configuration.literalCapability] + configuration.extensions
        if state == .notAuthenticated {
            if configuration.startTLSAvailable && !isSecure { names.append("STARTTLS") }
            if plaintextAllowed {
                names += configuration.mechanisms.map { "AUTH=" + $0 }
            } else {
                names.append("LOGINDISABLED")
            }
        }
        return names
    }

    var plaintextAllowed: Bool { isSecure || configuration.allowsPlaintextAuthentication }

    // MARK: - Events

    /// The greeting: `* OK [CAPABILITY ...]`.
    public mutating func start(into actions: inout [Action]) {
        untagged(.condition(IMAPStatusResponse(.ok, code: .capability(capabilities), "Postern IMAP ready")), &actions)
    }

    /// Bytes from the client.
    public mutating func receive(_ bytes: some Collection<UInt8>, now: UInt64, into actions: inout [Action]) {
        guard phase != .closed, phase != .startingTLS, !bytes.isEmpty else { return }
        lastHeard = now
        input.append(bytes)
        readCommands(now: now, into: &actions)
    }

    /// Reads the input left waiting when a turn ended at ``IMAPLimits/maxPipelinedCommands``.
    public mutating func resume(now: UInt64, into actions: inout [Action]) {
        readCommands(now: now, into: &actions)
    }

    /// The deadline given by ``deadline`` may have passed.
    public mutating func timerFired(now: UInt64, into actions: inout [Action]) {
        guard let deadline, now >= deadline else { return }
        bye("Autologout; idle for too long", &actions)
    }

    /// The server ends the session (its credential no longer holds): `* BYE` with `text` and close, whatever it was
    /// doing.
    public mutating func end(_ text: String, into actions: inout [Action]) {
        guard phase != .closed else { return }
        bye(text, &actions)
    }

    /// The server is shutting down: `* BYE` and close.
    public mutating func shutdown(into actions: inout [Action]) {
        guard phase != .closed else { return }
        bye("Server shutting down", &actions)
    }

    /// The connection ended under the session: nothing more is done.
    public mutating func connectionClosed() {
        phase = .closed
        input.drop()
    }

    // MARK: - Reading

    mutating func readCommands(now: UInt64, into actions: inout [Action]) {
        var answered = 0
        while answered < configuration.limits.maxPipelinedCommands && readsInput {
            input.framer.releaseDelivered()  // the command before this one is answered
            input.framer.readsLines = phase != .reading
            guard let event = input.next() else { break }
            if case .literalContinuation = event {
                send(.continuation(.text("Ready for literal data")), &actions)
                continue
            }
            answered += 1
            handle(event, now: now, into: &actions)
        }
    }

    var readsInput: Bool {
        switch phase {
        case .reading, .authenticating, .failingAuthentication, .idling: return true
        case .awaitingDriver, .startingTLS, .closed: return false
        }
    }

    private mutating func handle(_ event: IMAPFramerEvent, now: UInt64, into actions: inout [Action]) {
        switch event {
        case .literalContinuation:
            return
        case .refusedAndClosed(let tag, let error):
            refuse(tag: phaseTag ?? tag, error, &actions)
            bye("Too much data", &actions)
        case .refused(let tag, let error):
            let phaseTag = self.phaseTag
            if case .idling = phase { actions.append(.perform(.idleEnded)) }
            phase = .reading
            refuse(tag: phaseTag ?? tag, error, &actions)
        case .line(let line):
            lineArrived(line, &actions)
        case .command(let bytes):
            do {
                let command = try IMAPCommandParser.parse(bytes, limits: configuration.limits)
                run(command, &actions)
            } catch {
                refuse(tag: error.tag, error.error, &actions)
            }
        }
    }

    /// The tag of the command whose lines are being read (an AUTHENTICATE's, an IDLE's).
    var phaseTag: String? {
        switch phase {
        case .authenticating(let tag, _), .failingAuthentication(let tag, _), .idling(let tag): return tag
        default: return nil
        }
    }

    // MARK: - Output

    mutating func send(_ response: IMAPResponse, _ actions: inout [Action]) {
        if case .send(var bytes)? = actions.last {
            actions.removeLast()
            encoder.encode(response, into: &bytes)
            actions.append(.send(bytes))
        } else {
            actions.append(.send(encoder.encode(response)))
        }
    }

    mutating func untagged(_ response: IMAPUntaggedResponse, _ actions: inout [Action]) {
        send(.untagged(response), &actions)
    }

    mutating func tagged(_ tag: String, _ status: IMAPStatusResponse, _ actions: inout [Action]) {
        send(.tagged(tag: tag, status), &actions)
    }

    private mutating func refuse(tag: String?, _ error: IMAPCommandError, _ actions: inout [Action]) {
        let status = IMAPStatusResponse(error.isTemporary ? .no : .bad, code: error.code, error.text)
        if let tag { tagged(tag, status, &actions) } else { untagged(.condition(status), &actions) }
    }

    mutating func bye(_ text: String, _ actions: inout [Action]) {
        if case .idling = phase { actions.append(.perform(.idleEnded)) }
        untagged(.condition(IMAPStatusResponse(.bye, text)), &actions)
        actions.append(.closeConnection)
        state = .logout
        connectionClosed()
    }
}
