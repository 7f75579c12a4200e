/// Why the peer's bytes failed the connection, with the close code it is failed with (RFC 6455 §7.1.7).
public struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: String, Sendable, Equatable {
        /// A client frame without the mask bit (§5.1).
        case unmaskedFrame = "unmasked frame"
        /// A reserved bit set with no extension negotiated (§5.2).
        case reservedBits = "reserved bits set"
        /// A reserved opcode (§5.2).
        case reservedOpcode = "reserved opcode"
        /// A control frame over 125 bytes (§5.5).
        case controlFrameTooLong = "control frame over 125 bytes"
        /// A control frame without FIN (§5.5).
        case fragmentedControlFrame = "fragmented control frame"
        /// A continuation frame with no message in progress (§5.4).
        case unexpectedContinuation = "continuation without a message"
        /// A new text or binary frame while a fragmented message is in progress (§5.4).
        case expectedContinuation = "new message inside a fragmented one"
        /// A payload length not in its shortest form, or with the 64-bit form's top bit set (§5.2).
        case invalidLength = "invalid payload length"
        /// A message over the configured limit (§7.4.1, 1009).
        case messageTooBig = "message too big"
        /// A text message or close reason that is not valid UTF-8 (§8.1, 1007).
        case invalidUTF8 = "invalid UTF-8"
        /// A close frame of one byte, or with a code not allowed on the wire (§5.5.1, §7.4).
        case invalidClose = "invalid close frame"
    }

    /// What was wrong.
    public let reason: Reason

    /// The error for `reason`.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// The code the connection is closed with: 1009 for size, 1007 for UTF-8, 1002 for everything else.
    public var closeCode: WebSocketCloseCode {
        switch reason {
        case .messageTooBig: return .messageTooBig
        case .invalidUTF8: return .invalidPayload
        default: return .protocolError
        }
    }

    public var description: String { "\(closeCode.rawValue) \(reason.rawValue)" }
}
