/// Writes frames (RFC 6455 §5.2): the server's, unmasked, and (for tests and the fuzzer, which play the client) masked
/// ones. Lengths are always in their shortest form.
public enum WebSocketFrameEncoder {
    /// The bytes of one unmasked (server) frame.
    public static func encode(_ frame: WebSocketFrame) -> [UInt8] {
        var bytes = header(frame, masked: false)
        bytes.append(contentsOf: frame.payload)
        return bytes
    }

    /// The bytes of one masked (client) frame, masked with `mask`.
    public static func encodeMasked(_ frame: WebSocketFrame, mask: (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
        var bytes = header(frame, masked: true)
        let key = [mask.0, mask.1, mask.2, mask.3]
        bytes.append(contentsOf: key)
        for (index, byte) in frame.payload.enumerated() { bytes.append(byte ^ key[index & 3]) }
        return bytes
    }

    /// A close frame's payload: `code` then up to 123 bytes of `reason` (cut on a character boundary).
    public static func closePayload(_ code: WebSocketCloseCode, reason: String = "") -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var kept = 0
        for scalar in reason.unicodeScalars {
            let width = String(scalar).utf8.count
            guard kept + width <= 123 else { break }
            payload.append(contentsOf: String(scalar).utf8)
            kept += width
        }
        return payload
    }

    private static func header(_ frame: WebSocketFrame, masked: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(14 + frame.payload.count)
        bytes.append((frame.fin ? 0x80 : 0) | frame.opcode.rawValue)
        let maskBit: UInt8 = masked ? 0x80 : 0
        let count = frame.payload.count
        if count <= 125 {
            bytes.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(count >> 8))
            bytes.append(UInt8(count & 0xFF))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
        }
        return bytes
    }
}
