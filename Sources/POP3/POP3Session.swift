import MailDoor

/// One POP3 connection's protocol (RFC 1939, RFC 2449's CAPA and response codes, RFC 5034's AUTH, RFC 2595's STLS)
/// as a pure state machine, in the manner of IMAP's session: the client's bytes, the driver's answers and the clock
/// in; bytes, requests and "close the connection" out.
///
/// The rules, in order of the connection's life:
/// - Greeting: `+OK Postern POP3 ready` (no APOP timestamp: APOP is not offered).
/// - Input: lines, read one command at a time, each once the one before it is answered (after a driver's answer,
///   at the connection's ``resume(now:into:)``, once its output is written down to its bound); at most
///   ``POP3Limits/maxPipelinedCommands`` per turn (``hasBufferedInput``, ``resume(now:into:)``), at most
///   ``POP3Limits/maxBufferedInputBytes`` waiting (``wantsInput``). A command line over ``POP3Limits/maxLineBytes``
///   (a SASL line, or an `AUTH` with its initial response, over ``POP3Limits/maxSASLLineBytes``) is read to its end
///   and answered `-ERR Line too long`.
/// - Any state: `CAPA` lists `TOP UIDL RESP-CODES AUTH-RESP-CODE PIPELINING IMPLEMENTATION`, and before sign-in
///   `USER` and `SASL ...` (when plaintext is allowed or the connection is TLS) and `STLS` (when offered). An unknown
///   command gets `-ERR Unknown command`, a known one in the wrong state `-ERR Command not allowed now`.
/// - Authorization: `STLS` answers `+OK`, drops the input after it and waits for ``tlsEstablished(now:into:)``.
///   `USER`, `PASS` and `AUTH` without TLS are refused unless plaintext is allowed. `PASS` follows `USER`; the pair
///   goes to the driver. `AUTH` with no mechanism lists them; `AUTH mechanism [initial-response]` runs as IMAP's
///   does (`+ ` challenges, `*` cancels). `APOP` is refused. Success: `+OK` with the maildrop's count and size, the
///   transaction state; failure: `-ERR` with the driver's code (`[AUTH]`, `[IN-USE]`), the connection closed after
///   ``POP3Limits/maxFailedSignIns``. `QUIT` says goodbye and closes.
/// - Transaction: `STAT`, `LIST`, `UIDL`, `DELE`, `RSET` and `NOOP` are answered from the maildrop the driver gave
///   at sign-in (numbers fixed for the session; a message marked deleted is no longer listed or retrievable). `RETR`
///   and `TOP` ask the driver for the bytes and send them dot-stuffed (`TOP`: the header and the first n body lines).
///   `QUIT` asks the driver to remove the marked messages (update state), answers `+OK` or `-ERR [SYS/TEMP]`, and
///   closes.
/// - Silence: after ``POP3Limits/autologout`` (``POP3Limits/unauthenticatedTimeout`` before sign-in) without a byte
///   from the client the connection closes, with no response and nothing removed (RFC 1939 §3); time the driver
///   spends does not count.
public struct POP3Session: Sendable, MailDoorSession {
    /// What the session asks its connection to do, in order.
    public enum Action: Sendable, Equatable {
        case send([UInt8])
        case perform(POP3Request)
        /// Close the connection once everything asked to be sent has been written.
        case closeConnection
    }

    /// RFC 1939's states.
    public enum State: Sendable, Equatable {
        case authorization, transaction, update
    }

    enum Phase: Equatable {
        case reading
        case awaitingDriver(Pending)
        case authenticating(mechanism: String)
        case failingAuthentication(code: POP3ResponseCode)
        case startingTLS
        case closed
    }

    /// Where the conversation stands, for the reading and the clock (``MailDoorSession``).
    package var stage: MailDoorStage {
        switch phase {
        case .reading: .readingCommands
        case .authenticating, .failingAuthentication: .exchanging
        case .awaitingDriver, .startingTLS: .waiting
        case .closed: .closed
        }
    }

    enum Pending: Equatable {
        case login
        case authenticate(mechanism: String)
        case retrieve(topLines: Int?)
        case commit
    }

    public let configuration: POP3SessionConfiguration
    public internal(set) var state = State.authorization
    public internal(set) var user: String?
    public internal(set) var isSecure: Bool
    /// The maildrop listed at sign-in.
    public internal(set) var maildrop: [POP3Message] = []
    /// The indexes (from 0) of the messages marked deleted.
    public internal(set) var deleted: Set<Int> = []
    var phase = Phase.reading
    var username: String?
    var failedSignIns = 0
    package var input: SessionInput<LineFramer>
    package var lastHeard: UInt64

    /// The session of a connection accepted at `now` (monotonic nanoseconds).
    public init(configuration: POP3SessionConfiguration, now: UInt64) {
        self.configuration = configuration
        let maxLineBytes = max(configuration.limits.maxLineBytes, configuration.limits.maxSASLLineBytes)
        input = SessionInput(
            framer: LineFramer(maxLineBytes: maxLineBytes), maxWaitingBytes: configuration.limits.maxBufferedInputBytes)
        isSecure = configuration.isSecure
        lastHeard = now
    }

    /// How long the client may stay silent: ``POP3Limits/unauthenticatedTimeout`` in the AUTHORIZATION state, then
    /// ``POP3Limits/autologout`` (the reading and the clock are ``MailDoorSession``'s).
    package var timeout: Duration {
        state == .authorization ? configuration.limits.unauthenticatedTimeout : configuration.limits.autologout
    }

    var plaintextAllowed: Bool { isSecure || configuration.allowsPlaintextAuthentication }

    /// The greeting.
    public mutating func start(into actions: inout [Action]) {
        send(.ok("Postern POP3 ready"), &actions)
    }

    /// Bytes from the client.
    public mutating func receive(_ bytes: some Collection<UInt8>, now: UInt64, into actions: inout [Action]) {
        guard phase != .closed, phase != .startingTLS, !bytes.isEmpty else { return }
        lastHeard = now
        input.append(bytes)
        readCommands(into: &actions)
    }

    /// Reads the input left waiting when a turn ended at ``POP3Limits/maxPipelinedCommands``.
    public mutating func resume(now: UInt64, into actions: inout [Action]) {
        readCommands(into: &actions)
    }

    /// The deadline may have passed: a silent client is disconnected without a word.
    public mutating func timerFired(now: UInt64, into actions: inout [Action]) {
        guard let deadline, now >= deadline else { return }
        close(&actions)
    }

    /// The server ends the session (its credential no longer holds): `-ERR [AUTH]` with `text`, and close with nothing
    /// removed, whatever it was doing.
    public mutating func end(_ text: String, into actions: inout [Action]) {
        guard phase != .closed else { return }
        send(.error(.auth, text), &actions)
        close(&actions)
    }

    /// The server is shutting down.
    public mutating func shutdown(into actions: inout [Action]) {
        guard phase != .closed else { return }
        send(.error(.systemTemporary, "Server shutting down"), &actions)
        close(&actions)
    }

    /// The connection ended under the session.
    public mutating func connectionClosed() {
        phase = .closed
        input.drop()
    }

    mutating func readCommands(into actions: inout [Action]) {
        var answered = 0
        while answered < configuration.limits.maxPipelinedCommands && readsInput {
            guard let event = input.next() else { break }
            answered += 1
            switch event {
            case .line(let line):
                lineArrived(line, &actions)
            case .tooLong:
                lineRefused(&actions)
            }
        }
    }

    private var readsInput: Bool {
        switch phase {
        case .reading, .authenticating, .failingAuthentication: return true
        case .awaitingDriver, .startingTLS, .closed: return false
        }
    }

    private mutating func lineArrived(_ line: [UInt8], _ actions: inout [Action]) {
        switch phase {
        case .authenticating(let mechanism):
            saslLine(line, mechanism: mechanism, &actions)
        case .failingAuthentication(let code):
            phase = .reading
            signInFailed(code, &actions)
        default:
            guard line.count <= configuration.limits.maxLineBytes || Self.isAuthCommand(line) else {
                return lineRefused(&actions)
            }
            do {
                run(try POP3Command.parse(line), &actions)
            } catch {
                send(.error(nil, error.text), &actions)
            }
        }
    }

    /// Whether `line` is an `AUTH` command, whose initial response may be as long as a SASL line (an OAuth token is
    /// longer than RFC 5034 §4's 255 octets, and clients send it there all the same).
    static func isAuthCommand(_ line: [UInt8]) -> Bool {
        line.count > 5 && line.prefix(5).map(ASCII.upper) == Array("AUTH ".utf8)
    }

    private mutating func lineRefused(_ actions: inout [Action]) {
        if case .authenticating = phase { phase = .reading }
        if case .failingAuthentication = phase { phase = .reading }
        send(.error(nil, POP3CommandError.lineTooLong.text), &actions)
    }

    mutating func send(_ response: POP3Response, _ actions: inout [Action]) {
        if case .send(var bytes)? = actions.last {
            actions.removeLast()
            bytes += response.encoded
            actions.append(.send(bytes))
        } else {
            actions.append(.send(response.encoded))
        }
    }

    mutating func close(_ actions: inout [Action]) {
        actions.append(.closeConnection)
        connectionClosed()
    }
}
