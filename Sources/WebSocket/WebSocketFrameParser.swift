/// Reads a client's frames (RFC 6455 §5) from bytes as they arrive, in any pieces: a frame split across reads, or
/// several in one, come out the same.
///
/// The frame rules it enforces, each failing the connection with the code ``WebSocketProtocolError`` gives:
/// - every client frame is masked (§5.1), and its payload is unmasked here;
/// - no reserved bit (RSV1–3) is set and no reserved opcode is used, as no extension is ever negotiated (§5.2);
/// - lengths are in their shortest form and the 64-bit form's top bit is clear (§5.2);
/// - control frames (close, ping, pong) carry at most 125 bytes and have FIN set (§5.5); they may come between the
///   fragments of a message (§5.4);
/// - a continuation frame continues a message in progress, and a text or binary frame starts one only when none is
///   in progress (§5.4);
/// - a message's data frames together carry at most `maxMessageBytes` (1009): refused as soon as a frame's header
///   says so, before its payload is read.
///
/// Memory: the buffer holds the bytes not yet read out; a caller that reads frames out after every append keeps it
/// to one partial frame (at most `maxMessageBytes` plus a 14-byte header) and one append. After an error the parser
/// is spent: it keeps throwing the same error.
public struct WebSocketFrameParser: Sendable {
    /// The most bytes the data frames of one message carry together.
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Whether a fragmented text or binary message is in progress (its first frame had no FIN).
    public private(set) var inMessage = false
    /// The data bytes of the message in progress read so far.
    private var messageBytes = 0
    private var failure: WebSocketProtocolError?

    /// A parser at the start of a connection.
    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes appended and not yet read out as frames.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Appends bytes read from the peer.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 4096 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil until more bytes arrive.
    /// - Throws: ``WebSocketProtocolError`` when the bytes break a rule above; the parser throws it from then on.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try parseFrame()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func parseFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        // Everything the first two bytes say is checked before waiting for more.
        guard first & 0x70 == 0 else { throw WebSocketProtocolError(.reservedBits) }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(.reservedOpcode)
        }
        let fin = first & 0x80 != 0
        guard second & 0x80 != 0 else { throw WebSocketProtocolError(.unmaskedFrame) }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(.fragmentedControlFrame) }
            guard shortLength <= 125 else { throw WebSocketProtocolError(.controlFrameTooLong) }
        } else if opcode == .continuation {
            guard inMessage else { throw WebSocketProtocolError(.unexpectedContinuation) }
        } else {
            guard !inMessage else { throw WebSocketProtocolError(.expectedContinuation) }
        }
        var headerLength = 2
        let length: Int
        switch shortLength {
        case 126:
            guard available >= 4 else { return nil }
            length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            guard length > 125 else { throw WebSocketProtocolError(.invalidLength) }
            headerLength = 4
        case 127:
            guard available >= 10 else { return nil }
            var wide: UInt64 = 0
            for index in 2..<10 { wide = wide << 8 | UInt64(buffer[start + index]) }
            guard wide >> 63 == 0, wide > 0xFFFF else { throw WebSocketProtocolError(.invalidLength) }
            // Larger than any message taken: refused below without reading further.
            length = wide > UInt64(Int32.max) ? Int(Int32.max) : Int(wide)
            headerLength = 10
        default:
            length = shortLength
        }
        if !opcode.isControl && length > maxMessageBytes - messageBytes {
            throw WebSocketProtocolError(.messageTooBig)
        }
        guard available >= headerLength + 4 + length else { return nil }
        let mask = (
            buffer[start + headerLength], buffer[start + headerLength + 1], buffer[start + headerLength + 2],
            buffer[start + headerLength + 3]
        )
        let payloadStart = start + headerLength + 4
        var payload = Array(buffer[payloadStart..<(payloadStart + length)])
        payload.withUnsafeMutableBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                switch index & 3 {
                case 0: bytes[index] ^= mask.0
                case 1: bytes[index] ^= mask.1
                case 2: bytes[index] ^= mask.2
                default: bytes[index] ^= mask.3
                }
                index += 1
            }
        }
        start = payloadStart + length
        if !opcode.isControl {
            if fin {
                inMessage = false
                messageBytes = 0
            } else {
                inMessage = true
                messageBytes += length
            }
        }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}
