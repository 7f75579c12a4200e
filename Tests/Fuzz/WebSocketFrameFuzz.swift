// libFuzzer entry for the WebSocket frame parser and session machine (Sources/WebSocket, pure). Built by scripts/fuzz
// together with that target's files (and HTTP1's, which the handshake uses) into one module; not part of the SwiftPM
// package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. The frame parser never crashes; it reads the same frames, or fails with the same error, whether the input comes
//    whole or one byte at a time; every control frame it reads has FIN and at most 125 bytes, and no data frame
//    passes the message limit.
// 2. A session fed the input in pieces the input chooses never crashes; every byte it sends is whole unmasked server
//    frames; a close frame it sends never carries 1005, 1006 or 1015; nothing follows `closeConnection`; a text
//    message it delivers is valid UTF-8.
// 3. The handshake's key check agrees with a plain base64 decoding of 16 bytes.

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

private func frames(_ pieces: [ArraySlice<UInt8>], limit: Int) -> Result<[WebSocketFrame], WebSocketProtocolError> {
    var parser = WebSocketFrameParser(maxMessageBytes: limit)
    var read: [WebSocketFrame] = []
    for piece in pieces {
        parser.append(piece)
        do {
            while let frame = try parser.next() { read.append(frame) }
        } catch {
            return .failure(error)
        }
    }
    return .success(read)
}

/// Reads `bytes` as server frames; every byte must belong to a whole unmasked frame.
private func serverFrames(_ bytes: [UInt8]) -> [WebSocketFrame] {
    var read: [WebSocketFrame] = []
    var index = 0
    while index < bytes.count {
        require(bytes.count - index >= 2, "a cut server frame")
        let first = bytes[index]
        let second = bytes[index + 1]
        require(second & 0x80 == 0, "a masked server frame")
        require(first & 0x70 == 0, "reserved bits in a server frame")
        var length = Int(second & 0x7F)
        var header = 2
        if length == 126 {
            length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            header = 4
        } else if length == 127 {
            length = 0
            for offset in 2..<10 { length = length << 8 | Int(bytes[index + offset]) }
            header = 10
        }
        require(bytes.count - index - header >= length, "a cut server payload")
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        require(opcode != nil, "a reserved opcode sent")
        read.append(
            WebSocketFrame(fin: first & 0x80 != 0, opcode: opcode!, payload: Array(bytes[(index + header)..<(index + header + length)])))
        index += header + length
    }
    return read
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let limit = 300

    let whole = frames([input[...]], limit: limit)
    let single = frames(input.indices.map { input[$0...$0] }, limit: limit)
    require(whole == single, "whole \(whole) vs byte by byte \(single)")
    if case .success(let read) = whole {
        for frame in read where frame.opcode.isControl {
            require(frame.fin && frame.payload.count <= 125, "control frame \(frame)")
        }
        for frame in read where !frame.opcode.isControl { require(frame.payload.count <= limit, "data frame over limit") }
    }

    var configuration = WebSocketConfiguration()
    configuration.maxMessageBytes = limit
    var session = WebSocketSession(configuration: configuration, now: 0)
    var actions: [WebSocketSession.Action] = []
    var rest = input[...]
    var now: UInt64 = 0
    while !rest.isEmpty && session.state != .closed {
        // The input splits itself: its first byte says how many of the next bytes form one read; a read of one
        // byte over 0xF0 is a tick of the clock instead.
        let count = min(rest.count - 1, Int(rest.first! % 64) + 1)
        let chunk = rest.dropFirst().prefix(count)
        rest = rest.dropFirst(count + 1)
        if chunk.count == 1, let byte = chunk.first, byte > 0xF0 {
            now += UInt64(byte - 0xF0) * 10_000_000_000
            session.timerFired(now: now, into: &actions)
        } else if chunk.first == 0xF0 {
            session.send(.text(String(decoding: chunk, as: UTF8.self)), into: &actions)
        } else {
            session.receive(chunk, now: now, into: &actions)
        }
    }
    var closed = false
    for action in actions {
        require(!closed, "an action after closeConnection")
        switch action {
        case .send(let bytes):
            for frame in serverFrames(bytes) where frame.opcode == .close {
                require(frame.payload.count != 1, "a one-byte close")
                if frame.payload.count >= 2 {
                    let code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                    require(![1005, 1006, 1015].contains(code), "sent close code \(code)")
                    require(WebSocketCloseCode(rawValue: code).isValidOnTheWire, "sent close code \(code)")
                }
            }
        case .deliver(let message):
            if case .text(let text) = message { require(UTF8Validator.isValid(Array(text.utf8)), "invalid text delivered") }
        case .closeConnection:
            closed = true
        }
    }

    let key = String(decoding: input.prefix(24), as: UTF8.self)
    if WebSocketHandshake.isValidKey(key) {
        require(key.utf8.count == 24 && key.hasSuffix("=="), "key \(key)")
    }
    return 0
}
