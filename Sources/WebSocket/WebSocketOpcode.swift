/// A frame's opcode (RFC 6455 §5.2); 3–7 and 11–15 are reserved, and a frame carrying one is a protocol error.
public enum WebSocketOpcode: UInt8, Sendable, Equatable {
    /// A later fragment of a text or binary message.
    case continuation = 0x0
    /// The first (or only) frame of a UTF-8 text message.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// The closing handshake: an optional status code and reason.
    case close = 0x8
    /// A keep-alive the peer answers with a pong carrying the same payload.
    case ping = 0x9
    /// The answer to a ping (or an unsolicited heartbeat, which is ignored).
    case pong = 0xA

    /// Whether this is a control frame (close, ping, pong): at most 125 bytes and never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One frame as the parser read it: its payload unmasked.
public struct WebSocketFrame: Sendable, Equatable {
    /// Whether this is the final fragment of its message (always true for control frames).
    public var fin: Bool
    /// What the frame carries.
    public var opcode: WebSocketOpcode
    /// The application data, unmasked.
    public var payload: [UInt8]

    /// A frame of `opcode` carrying `payload`.
    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }
}

/// A whole message, its fragments joined.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message, valid UTF-8.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}
