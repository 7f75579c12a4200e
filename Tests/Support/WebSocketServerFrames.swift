import WebSocket

/// Reads the frames a server sends (RFC 6455 §5.2: never masked) out of the bytes a test client has read, for the
/// clients that speak WebSocket on a raw socket after the `101`. ``WebSocketFrameParser`` reads clients' frames
/// (which must be masked), so the other direction is read here.
public enum WebSocketServerFrames {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The first whole frame in `buffer`, removed from it; nil until `buffer` holds one.
    /// - Throws: ``Failure`` for a masked frame or an unknown opcode (a server never sends either).
    public static func next(in buffer: inout [UInt8]) throws -> WebSocketFrame? {
        guard buffer.count >= 2 else { return nil }
        var length = Int(buffer[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            header = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        guard buffer.count >= header + length else { return nil }
        guard buffer[1] & 0x80 == 0 else { throw Failure(description: "a masked server frame") }
        guard let opcode = WebSocketOpcode(rawValue: buffer[0] & 0x0F) else {
            throw Failure(description: "an unknown opcode \(buffer[0] & 0x0F)")
        }
        let frame = WebSocketFrame(
            fin: buffer[0] & 0x80 != 0, opcode: opcode, payload: Array(buffer[header..<(header + length)]))
        buffer.removeFirst(header + length)
        return frame
    }
}
