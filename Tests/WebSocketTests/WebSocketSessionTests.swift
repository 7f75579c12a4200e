import Testing
import WebSocket

@Suite("WebSocket session: messages, pings and the closing handshake (RFC 6455 §5–§7)")
struct WebSocketSessionTests {
    static let second: UInt64 = 1_000_000_000

    static func session(maxMessageBytes: Int = 1024) -> WebSocketSession {
        var configuration = WebSocketConfiguration()
        configuration.maxMessageBytes = maxMessageBytes
        return WebSocketSession(configuration: configuration, now: 0)
    }

    /// Feeds `bytes` whole to one session and byte by byte to another; both must act the same.
    static func feed(_ bytes: [UInt8], now: UInt64 = 0) -> [WebSocketSession.Action] {
        var whole = session()
        var wholeActions: [WebSocketSession.Action] = []
        whole.receive(bytes, now: now, into: &wholeActions)
        var single = session()
        var singleActions: [WebSocketSession.Action] = []
        for byte in bytes { single.receive([byte], now: now, into: &singleActions) }
        #expect(wholeActions == singleActions)
        #expect(whole.state == single.state)
        return wholeActions
    }

    @Test("a text and a binary message are delivered")
    func messages() {
        #expect(Self.feed(clientText("héllo")) == [.deliver(.text("héllo"))])
        #expect(Self.feed(clientFrame(.binary, [0, 255])) == [.deliver(.binary([0, 255]))])
    }

    @Test("fragments are joined, with a ping between them answered at once")
    func fragments() {
        let bytes = clientText("frag", fin: false) + clientFrame(.ping, [7, 7]) + clientFrame(.continuation, Array("ment".utf8))
        #expect(Self.feed(bytes) == [.send(serverFrame(.pong, [7, 7])), .deliver(.text("fragment"))])
    }

    @Test("ping is answered with a pong carrying the same payload; a pong is ignored")
    func pingPong() {
        #expect(Self.feed(clientFrame(.ping, Array("abc".utf8))) == [.send(serverFrame(.pong, Array("abc".utf8)))])
        #expect(Self.feed(clientFrame(.pong, [1])) == [])
    }

    @Test("invalid UTF-8 in a text message is 1007, even split across fragments at a bad byte")
    func invalidUTF8() {
        let fail: [WebSocketSession.Action] = [.send(serverClose(.invalidPayload)), .closeConnection]
        #expect(Self.feed(clientFrame(.text, [0x68, 0xC0, 0x80])) == fail)
        // "€" is E2 82 AC: split across fragments it is valid; E2 82 then a new lead is not.
        let valid = clientFrame(.text, [0xE2, 0x82], fin: false) + clientFrame(.continuation, [0xAC])
        #expect(Self.feed(valid) == [.deliver(.text("€"))])
        let invalid = clientFrame(.text, [0xE2, 0x82], fin: false) + clientFrame(.continuation, [0x41])
        #expect(Self.feed(invalid) == fail)
        // Fails at the fragment with the bad byte, before the message ends.
        let early = clientFrame(.text, [0xFF], fin: false)
        #expect(Self.feed(early) == fail)
        // A text message ending inside a character.
        #expect(Self.feed(clientFrame(.text, [0xE2, 0x82])) == fail)
        // Binary messages are not UTF-8 checked.
        #expect(Self.feed(clientFrame(.binary, [0xFF])) == [.deliver(.binary([0xFF]))])
    }

    @Test("frame rule failures close with their code and then the connection")
    func failures() {
        var unmasked = serverFrame(.text, [0x61])
        #expect(Self.feed(unmasked) == [.send(serverClose(.protocolError)), .closeConnection])
        unmasked = clientText("x")
        unmasked[0] |= 0x40
        #expect(Self.feed(unmasked) == [.send(serverClose(.protocolError)), .closeConnection])
        #expect(
            Self.feed(clientFrame(.binary, [UInt8](repeating: 0, count: 1025)))
                == [.send(serverClose(.messageTooBig)), .closeConnection])
        #expect(Self.feed(clientFrame(.ping, [], fin: false)) == [.send(serverClose(.protocolError)), .closeConnection])
    }

    @Test("the client's close is echoed with its code, then the server closes the connection; nothing more is read")
    func clientCloses() {
        let close = clientFrame(.close, WebSocketFrameEncoder.closePayload(.normal, reason: "bye"))
        #expect(Self.feed(close + clientText("late")) == [.send(serverClose(.normal)), .closeConnection])
        // An empty close is echoed empty: 1005 is never sent.
        #expect(Self.feed(clientFrame(.close)) == [.send(serverFrame(.close)), .closeConnection])
        #expect(Self.feed(clientFrame(.close, [0x0F, 0xA0])) == [.send(serverFrame(.close, [0x0F, 0xA0])), .closeConnection])
    }

    @Test(
        "a close frame of one byte, or with a code not allowed on the wire, is 1002",
        arguments: [[0x03], [0x03, 0xED], [0x03, 0xEE], [0x03, 0xF7], [0x03, 0xEC], [0x00, 0x00], [0x0B, 0xB7], [0x13, 0x88]]
            as [[UInt8]])
    func invalidClose(payload: [UInt8]) {
        #expect(Self.feed(clientFrame(.close, payload)) == [.send(serverClose(.protocolError)), .closeConnection])
    }

    @Test("a close reason that is not UTF-8 is 1007")
    func closeReasonUTF8() {
        #expect(Self.feed(clientFrame(.close, [0x03, 0xE8, 0xC0])) == [.send(serverClose(.invalidPayload)), .closeConnection])
    }

    @Test("the server's close waits for the client's, dropping data meanwhile, or for the close timeout")
    func serverCloses() {
        var session = Self.session()
        var actions: [WebSocketSession.Action] = []
        session.close(.policyViolation, reason: "token revoked", now: 0, into: &actions)
        #expect(actions == [.send(serverFrame(.close, WebSocketFrameEncoder.closePayload(.policyViolation, reason: "token revoked")))])
        #expect(session.deadline == 5 * Self.second)
        actions = []
        session.send(.text("dropped"), into: &actions)
        session.receive(clientText("ignored") + clientFrame(.ping), now: 1, into: &actions)
        #expect(actions == [])
        session.receive(clientFrame(.close, WebSocketFrameEncoder.closePayload(.policyViolation)), now: 2, into: &actions)
        #expect(actions == [.closeConnection])
        #expect(session.state == .closed)

        var silent = Self.session()
        actions = []
        silent.shutdown(now: 0, into: &actions)
        #expect(actions == [.send(serverClose(.goingAway))])
        actions = []
        silent.timerFired(now: 5 * Self.second - 1, into: &actions)
        #expect(actions == [])
        silent.timerFired(now: 5 * Self.second, into: &actions)
        #expect(actions == [.closeConnection])
    }

    @Test("codes never sent: 1005, 1006 and 1015 become 1011")
    func neverSent() {
        for code in [WebSocketCloseCode.noStatus, .abnormalClosure, .tlsHandshake] {
            var session = Self.session()
            var actions: [WebSocketSession.Action] = []
            session.close(code, now: 0, into: &actions)
            #expect(actions == [.send(serverClose(.internalError))])
        }
    }

    @Test("the server pings every 30 s and closes a client silent for 60 s; any frame is a sign of life")
    func keepAlive() {
        var session = Self.session()
        var actions: [WebSocketSession.Action] = []
        #expect(session.deadline == 30 * Self.second)
        session.timerFired(now: 30 * Self.second, into: &actions)
        #expect(actions == [.send(serverFrame(.ping, [0, 0, 0, 0, 0, 0, 0, 1]))])
        #expect(session.deadline == 60 * Self.second)
        actions = []
        session.receive(clientFrame(.pong, [0, 0, 0, 0, 0, 0, 0, 1]), now: 31 * Self.second, into: &actions)
        session.timerFired(now: 60 * Self.second, into: &actions)
        #expect(actions == [.send(serverFrame(.ping, [0, 0, 0, 0, 0, 0, 0, 2]))])
        actions = []
        session.timerFired(now: 90 * Self.second, into: &actions)
        #expect(actions.count == 1)
        actions = []
        session.timerFired(now: 91 * Self.second, into: &actions)
        #expect(actions == [.closeConnection])
        #expect(session.deadline == nil)
    }

    @Test("messages the application sends go out as single unmasked frames while open")
    func sending() {
        var session = Self.session()
        var actions: [WebSocketSession.Action] = []
        session.send(.text("{\"type\":\"auth_ok\"}"), into: &actions)
        session.send(.binary([1, 2]), into: &actions)
        #expect(
            actions == [.send(serverFrame(.text, Array("{\"type\":\"auth_ok\"}".utf8))), .send(serverFrame(.binary, [1, 2]))])
        session.connectionClosed()
        actions = []
        session.send(.text("x"), into: &actions)
        #expect(actions == [])
    }
}
