import WebSocket

/// A client's masked frame, as a browser would send it.
func clientFrame(
    _ opcode: WebSocketOpcode, _ payload: [UInt8] = [], fin: Bool = true, mask: (UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4)
) -> [UInt8] {
    WebSocketFrameEncoder.encodeMasked(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), mask: mask)
}

func clientText(_ text: String, fin: Bool = true) -> [UInt8] { clientFrame(.text, Array(text.utf8), fin: fin) }

/// A server frame's bytes.
func serverFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8] = []) -> [UInt8] {
    WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload))
}

func serverClose(_ code: WebSocketCloseCode) -> [UInt8] {
    serverFrame(.close, WebSocketFrameEncoder.closePayload(code))
}

/// Feeds `bytes` to a parser whole and one byte at a time; both must read the same frames or fail the same way.
func parseBothWays(_ bytes: [UInt8], maxMessageBytes: Int = 1024) -> Result<[WebSocketFrame], WebSocketProtocolError> {
    func run(_ pieces: [[UInt8]]) -> Result<[WebSocketFrame], WebSocketProtocolError> {
        var parser = WebSocketFrameParser(maxMessageBytes: maxMessageBytes)
        var frames: [WebSocketFrame] = []
        for piece in pieces {
            parser.append(piece)
            do {
                while let frame = try parser.next() { frames.append(frame) }
            } catch {
                return .failure(error)
            }
        }
        return .success(frames)
    }
    let whole = run([bytes])
    let single = run(bytes.map { [$0] })
    precondition(whole == single, "whole \(whole) vs byte by byte \(single)")
    return whole
}
