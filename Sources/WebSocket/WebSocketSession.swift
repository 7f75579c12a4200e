/// The server side of one WebSocket connection after the opening handshake (RFC 6455 §5–§7), as a pure state
/// machine: the client's bytes, the application's messages, the clock and a shutdown in; bytes to send, whole
/// messages for the application and "close the connection" out. No socket, no thread, no clock of its own: the
/// server's connection feeds it from one thread, and tests drive it by hand and byte by byte.
///
/// The rules, in order of the connection's life:
/// - Frames: as ``WebSocketFrameParser`` reads them (masked, no reserved bits or opcodes, control frames at most 125
///   bytes and unfragmented, fragments in order, at most `maxMessageBytes` per message). A text message must be
///   valid UTF-8, checked fragment by fragment as they arrive so a bad byte fails at once (1007). Any failure sends
///   a close frame with the error's code (1002, 1007 or 1009) and closes the connection once it is written (§7.1.7).
/// - Control frames between fragments are answered at once (§5.4). A ping is answered with a pong carrying the same
///   payload (§5.5.2); a pong is a sign of life and nothing more.
/// - Keep-alive: the server pings every `pingInterval`; a client from which nothing at all (pong or any other frame)
///   has arrived for `pongTimeout` is gone, and the connection is closed without a close frame, as a peer that
///   answers no ping would read none.
/// - Closing started by the client: its close frame (empty, or a code allowed on the wire and a UTF-8 reason, else
///   1002 or 1007) is echoed with the same code, and the server closes the connection once the echo is written
///   (§5.5.1, §7.1.1: the server closes TCP first).
/// - Closing started by the server (``close(_:reason:now:)``, ``shutdown(now:)`` with 1001): its close frame goes
///   out, later data frames are read and dropped, and the connection closes when the client's close arrives or
///   `closeTimeout` after.
/// - Codes: the server never sends 1005, 1006 or 1015 (nor any code not allowed on the wire: asked to, it sends
///   1011).
public struct WebSocketSession: Sendable {
    /// What the session asks its connection to do, in order.
    public enum Action: Sendable, Equatable {
        /// Send these bytes (one or more whole frames) after everything asked for before.
        case send([UInt8])
        /// A whole message from the client, for the application.
        case deliver(WebSocketMessage)
        /// Close the connection once everything asked to be sent has been written. Nothing follows.
        case closeConnection
    }

    /// Where the connection is in its life.
    public enum State: Sendable, Equatable {
        /// Messages flow both ways.
        case open
        /// The server's close frame is sent: waiting for the client's until the deadline.
        case closing(deadline: UInt64)
        /// The connection is to be closed; the session takes nothing more.
        case closed
    }

    /// The limits and timers in force.
    public let configuration: WebSocketConfiguration
    private var parser: WebSocketFrameParser
    /// Where the connection is in its life.
    public private(set) var state = State.open
    /// The fragments of the message in progress, and its kind.
    private var fragments: [UInt8] = []
    private var fragmentKind = WebSocketOpcode.binary
    private var validator = UTF8Validator()
    /// When a frame last arrived, and when the server last pinged (monotonic nanoseconds).
    private var lastHeard: UInt64
    private var lastPing: UInt64
    private var pingCount: UInt64 = 0
    private let pingInterval: UInt64
    private let pongTimeout: UInt64
    private let closeTimeout: UInt64

    /// The session of a connection whose handshake completed at `now` (monotonic nanoseconds).
    public init(configuration: WebSocketConfiguration, now: UInt64) {
        self.configuration = configuration
        parser = WebSocketFrameParser(maxMessageBytes: configuration.maxMessageBytes)
        lastHeard = now
        lastPing = now
        pingInterval = Self.nanoseconds(configuration.pingInterval)
        pongTimeout = Self.nanoseconds(configuration.pongTimeout)
        closeTimeout = Self.nanoseconds(configuration.closeTimeout)
    }

    /// Whether the application may still send messages.
    public var isOpen: Bool { state == .open }

    /// When the session next needs ``timerFired(now:)``: the next ping or the silence limit while open, the close
    /// deadline while closing; nil once closed.
    public var deadline: UInt64? {
        switch state {
        case .open: return min(lastPing &+ pingInterval, lastHeard &+ pongTimeout)
        case .closing(let deadline): return deadline
        case .closed: return nil
        }
    }

    // MARK: - Events

    /// Bytes from the client.
    public mutating func receive<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, now: UInt64, into actions: inout [Action]
    ) {
        guard state != .closed else { return }
        parser.append(bytes)
        while state != .closed {
            let frame: WebSocketFrame?
            do {
                frame = try parser.next()
            } catch {
                return fail(error, into: &actions)
            }
            guard let frame else { return }
            lastHeard = now
            handle(frame, now: now, into: &actions)
        }
    }

    /// Sends `message` to the client; nothing once the session is closing or closed.
    public mutating func send(_ message: WebSocketMessage, into actions: inout [Action]) {
        guard state == .open else { return }
        switch message {
        case .text(let text):
            actions.append(.send(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))))
        case .binary(let bytes):
            actions.append(.send(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: bytes))))
        }
    }

    /// Starts the closing handshake with `code` (1011 in place of a code not allowed on the wire) and `reason`
    /// (cut to 123 bytes); nothing when it has started already.
    public mutating func close(
        _ code: WebSocketCloseCode, reason: String = "", now: UInt64, into actions: inout [Action]
    ) {
        guard state == .open else { return }
        let sent = code.isValidOnTheWire ? code : .internalError
        actions.append(.send(Self.closeFrame(WebSocketFrameEncoder.closePayload(sent, reason: reason))))
        state = .closing(deadline: now &+ closeTimeout)
    }

    /// The server is shutting down: close with 1001.
    public mutating func shutdown(now: UInt64, into actions: inout [Action]) {
        close(.goingAway, now: now, into: &actions)
    }

    /// The deadline given by ``deadline`` may have passed.
    public mutating func timerFired(now: UInt64, into actions: inout [Action]) {
        switch state {
        case .closed:
            return
        case .closing(let deadline):
            if now >= deadline { finish(into: &actions) }
        case .open:
            if now >= lastHeard &+ pongTimeout { return finish(into: &actions) }
            if now >= lastPing &+ pingInterval {
                lastPing = now
                pingCount &+= 1
                var payload: [UInt8] = []
                for shift in stride(from: 56, through: 0, by: -8) { payload.append(UInt8((pingCount >> UInt64(shift)) & 0xFF)) }
                actions.append(.send(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: payload))))
            }
        }
    }

    /// The connection ended under the session (the client went away): nothing more is done.
    public mutating func connectionClosed() {
        state = .closed
        fragments = []
    }

    // MARK: - Frames

    private mutating func handle(_ frame: WebSocketFrame, now: UInt64, into actions: inout [Action]) {
        switch frame.opcode {
        case .ping:
            guard state == .open else { return }
            actions.append(.send(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .pong, payload: frame.payload))))
        case .pong:
            return
        case .close:
            receivedClose(frame.payload, into: &actions)
        case .text, .binary, .continuation:
            if frame.opcode != .continuation {
                fragmentKind = frame.opcode
                fragments = []
                validator = UTF8Validator()
            }
            let closing = state != .open
            if fragmentKind == .text {
                guard validator.feed(frame.payload) else { return fail(WebSocketProtocolError(.invalidUTF8), into: &actions) }
                if frame.fin && !validator.isComplete {
                    return fail(WebSocketProtocolError(.invalidUTF8), into: &actions)
                }
            }
            // While closing, data is read (for its frame rules) and dropped.
            guard !closing else { return }
            if frame.fin && fragments.isEmpty {
                actions.append(.deliver(Self.message(fragmentKind, frame.payload)))
            } else {
                fragments.append(contentsOf: frame.payload)
                if frame.fin {
                    actions.append(.deliver(Self.message(fragmentKind, fragments)))
                    fragments = []
                }
            }
        }
    }

    /// The client's close frame: checked, echoed when the client started the handshake, then the connection closes.
    private mutating func receivedClose(_ payload: [UInt8], into actions: inout [Action]) {
        if payload.count == 1 { return fail(WebSocketProtocolError(.invalidClose), into: &actions) }
        if payload.count >= 2 {
            let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard code.isValidOnTheWire else { return fail(WebSocketProtocolError(.invalidClose), into: &actions) }
            guard UTF8Validator.isValid(payload.dropFirst(2)) else {
                return fail(WebSocketProtocolError(.invalidUTF8), into: &actions)
            }
        }
        if state == .open {
            // The echo carries the client's code (not its reason); an empty close is echoed empty, never as 1005.
            actions.append(.send(Self.closeFrame(Array(payload.prefix(2)))))
        }
        finish(into: &actions)
    }

    /// Fails the connection: the close frame with the error's code (unless the server's went out already), then
    /// the connection closes.
    private mutating func fail(_ error: WebSocketProtocolError, into actions: inout [Action]) {
        if state == .open {
            actions.append(.send(Self.closeFrame(WebSocketFrameEncoder.closePayload(error.closeCode))))
        }
        finish(into: &actions)
    }

    private mutating func finish(into actions: inout [Action]) {
        state = .closed
        fragments = []
        actions.append(.closeConnection)
    }

    private static func closeFrame(_ payload: [UInt8]) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: payload))
    }

    private static func message(_ kind: WebSocketOpcode, _ payload: [UInt8]) -> WebSocketMessage {
        // Validated as it arrived.
        kind == .text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
    }

    /// `duration` in whole nanoseconds; 0 for a negative one.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
