import Testing
import WebSocket

@Suite("WebSocket frame parser (RFC 6455 §5)")
struct WebSocketFrameParserTests {
    @Test("RFC 6455 §5.7 examples: a masked \"Hello\", fragmented text, a masked ping")
    func rfcExamples() {
        // "A single-frame masked text message" from §5.7.
        let hello: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(parseBothWays(hello) == .success([WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))]))
        let fragmented = clientFrame(.text, Array("Hel".utf8), fin: false) + clientFrame(.continuation, Array("lo".utf8))
        #expect(
            parseBothWays(fragmented)
                == .success([
                    WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
                    WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
                ]))
        let ping: [UInt8] = [0x89, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(parseBothWays(ping) == .success([WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8))]))
    }

    @Test("16-bit and 64-bit lengths", arguments: [126, 65535, 65536, 70000])
    func lengths(count: Int) {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = clientFrame(.binary, payload)
        #expect(bytes[1] & 0x7F == (count <= 65535 ? 126 : 127))
        #expect(parseBothWays(bytes, maxMessageBytes: 100_000) == .success([WebSocketFrame(opcode: .binary, payload: payload)]))
    }

    @Test("an unmasked client frame is 1002")
    func unmasked() {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)))
        #expect(parseBothWays(bytes) == .failure(WebSocketProtocolError(.unmaskedFrame)))
        #expect(WebSocketProtocolError(.unmaskedFrame).closeCode == .protocolError)
    }

    @Test("each reserved bit is 1002", arguments: [UInt8(0x40), 0x20, 0x10])
    func reservedBits(bit: UInt8) {
        var bytes = clientText("hi")
        bytes[0] |= bit
        #expect(parseBothWays(bytes) == .failure(WebSocketProtocolError(.reservedBits)))
    }

    @Test("each reserved opcode is 1002", arguments: [UInt8(3), 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF])
    func reservedOpcodes(opcode: UInt8) {
        let bytes: [UInt8] = [0x80 | opcode, 0x80, 1, 2, 3, 4]
        #expect(parseBothWays(bytes) == .failure(WebSocketProtocolError(.reservedOpcode)))
    }

    @Test("a 126-byte ping is 1002, refused from its header alone")
    func longControl() {
        let bytes = clientFrame(.ping, [UInt8](repeating: 0x61, count: 126))
        #expect(parseBothWays(bytes) == .failure(WebSocketProtocolError(.controlFrameTooLong)))
        #expect(parseBothWays(Array(bytes.prefix(2))) == .failure(WebSocketProtocolError(.controlFrameTooLong)))
        #expect(parseBothWays(clientFrame(.ping, [UInt8](repeating: 0x61, count: 125))).map(\.count) == .success(1))
    }

    @Test("a fragmented control frame is 1002", arguments: [WebSocketOpcode.ping, .pong, .close])
    func fragmentedControl(opcode: WebSocketOpcode) {
        #expect(parseBothWays(clientFrame(opcode, [], fin: false)) == .failure(WebSocketProtocolError(.fragmentedControlFrame)))
    }

    @Test("control frames between fragments are read in place")
    func interleavedControl() {
        let bytes =
            clientFrame(.text, Array("a".utf8), fin: false) + clientFrame(.ping, [9]) + clientFrame(.continuation, Array("b".utf8), fin: false)
            + clientFrame(.pong) + clientFrame(.continuation, Array("c".utf8))
        #expect(parseBothWays(bytes).map { $0.map(\.opcode) } == .success([.text, .ping, .continuation, .pong, .continuation]))
    }

    @Test("a continuation without a message, or a new message inside one, is 1002")
    func fragmentOrder() {
        #expect(parseBothWays(clientFrame(.continuation, [1])) == .failure(WebSocketProtocolError(.unexpectedContinuation)))
        let nested = clientFrame(.text, [0x61], fin: false) + clientFrame(.binary, [1])
        #expect(parseBothWays(nested) == .failure(WebSocketProtocolError(.expectedContinuation)))
        let after = clientFrame(.text, [0x61]) + clientFrame(.continuation, [1])
        #expect(parseBothWays(after) == .failure(WebSocketProtocolError(.unexpectedContinuation)))
    }

    @Test("a message over the limit is 1009 from the header that passes it, fragments counted together")
    func messageTooBig() {
        #expect(parseBothWays(clientFrame(.binary, [UInt8](repeating: 1, count: 1024))).map(\.count) == .success(1))
        let over = clientFrame(.binary, [UInt8](repeating: 1, count: 1025))
        #expect(parseBothWays(over) == .failure(WebSocketProtocolError(.messageTooBig)))
        #expect(parseBothWays(Array(over.prefix(4))) == .failure(WebSocketProtocolError(.messageTooBig)))
        #expect(WebSocketProtocolError(.messageTooBig).closeCode == .messageTooBig)
        let split = clientFrame(.binary, [UInt8](repeating: 1, count: 600), fin: false)
            + clientFrame(.continuation, [UInt8](repeating: 1, count: 600))
        #expect(parseBothWays(split) == .failure(WebSocketProtocolError(.messageTooBig)))
        // A 2 MiB frame's 64-bit header alone is enough.
        let huge: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0, 0, 0x20, 0, 0]
        #expect(parseBothWays(huge) == .failure(WebSocketProtocolError(.messageTooBig)))
    }

    @Test("lengths not in their shortest form, or with the top bit set, are 1002")
    func invalidLengths() {
        #expect(parseBothWays([0x82, 0xFE, 0, 5, 1, 2, 3, 4]) == .failure(WebSocketProtocolError(.invalidLength)))
        #expect(parseBothWays([0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0, 5]) == .failure(WebSocketProtocolError(.invalidLength)))
        #expect(parseBothWays([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .failure(WebSocketProtocolError(.invalidLength)))
    }

    @Test("after an error the parser keeps failing")
    func spent() {
        var parser = WebSocketFrameParser(maxMessageBytes: 100)
        parser.append([0x81, 0x02, 0x68, 0x69])
        #expect(throws: WebSocketProtocolError(.unmaskedFrame)) { try parser.next() }
        parser.append(clientText("ok"))
        #expect(throws: WebSocketProtocolError(.unmaskedFrame)) { try parser.next() }
    }
}
