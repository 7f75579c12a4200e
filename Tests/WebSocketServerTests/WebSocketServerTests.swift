import Foundation
import Glibc
import HTTPServer
import PosternTestSupport
import Testing
import WebSocket

@Suite("WebSocket on the HTTP server: the switch of protocols, and the session on a real socket", .timeLimit(.minutes(1)))
struct WebSocketServerTests {
    @Test("101 with Sec-WebSocket-Accept; a frame sent with the handshake (read with it) is echoed; then more")
    func upgradeAndEcho() async throws {
        let (server, port, _) = try startEchoServer()
        try await blocking {
            let client = try WebSocketTestClient(port: port)
            let frame = WebSocketFrameEncoder.encodeMasked(
                WebSocketFrame(opcode: .text, payload: Array("early".utf8)), mask: (1, 2, 3, 4))
            try client.send(Array(WebSocketTestClient.handshake(extra: "Sec-WebSocket-Protocol: chat\r\n").utf8) + frame)
            let head = try client.readHead()
            #expect(head.status == 101)
            #expect(head.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            #expect(head.headers["upgrade"] == "websocket" && head.headers["connection"] == "Upgrade")
            #expect(head.headers["sec-websocket-protocol"] == "chat")
            #expect(head.headers["content-length"] == nil)
            #expect(try client.readFrame() == WebSocketFrame(opcode: .text, payload: Array("early".utf8)))
            try client.send(.binary, [1, 2, 3])
            #expect(try client.readFrame() == WebSocketFrame(opcode: .binary, payload: [1, 2, 3]))
            try client.send(.ping, Array("hi".utf8))
            #expect(try client.readFrame() == WebSocketFrame(opcode: .pong, payload: Array("hi".utf8)))
        }
        await server.shutdown()
    }

    @Test("the client's close is echoed, then the server closes the connection; the socket counted until then")
    func clientClose() async throws {
        let (server, port, _) = try startEchoServer()
        let client = try await blocking {
            let client = try WebSocketTestClient(port: port)
            try client.send(WebSocketTestClient.handshake())
            #expect(try client.readHead().status == 101)
            return client
        }
        #expect(server.openConnectionCount == 1)
        try await blocking {
            try client.send(.close, WebSocketFrameEncoder.closePayload(.normal, reason: "done"))
            #expect(WebSocketTestClient.closeCode(try client.readFrame()) == 1000)
            #expect(client.isClosedByPeer())
        }
        try await waitUntil("the socket is no longer counted") { server.openConnectionCount == 0 }
        await server.shutdown()
    }

    @Test("open sockets hold their places under the connection caps, per client and overall (503); closing frees them")
    func connectionCaps() async throws {
        let (server, port, _) = try startEchoServer(server: {
            $0.maxConnections = 3
            $0.maxConnectionsPerClient = 2
        })
        /// A handshake from `source`: the client and the status it got.
        @Sendable func open(from source: String) throws -> (WebSocketTestClient, Int) {
            let client = try WebSocketTestClient(port: port, from: source)
            try client.send(WebSocketTestClient.handshake())
            return (client, try client.readHead().status)
        }
        let (first, second, other) = try await blocking {
            let (first, firstStatus) = try open(from: "127.0.0.1")
            let (second, secondStatus) = try open(from: "127.0.0.1")
            #expect(firstStatus == 101 && secondStatus == 101)
            // 127.0.0.1's two places are held by its two open sockets.
            let (refused, perClient) = try open(from: "127.0.0.1")
            #expect(perClient == 503)
            #expect(refused.isClosedByPeer())
            let (other, otherStatus) = try open(from: "127.0.0.2")
            #expect(otherStatus == 101)
            // Three sockets hold the server's three places: a third address is refused too.
            let (full, overall) = try open(from: "127.0.0.3")
            #expect(overall == 503)
            #expect(full.isClosedByPeer())
            for client in [first, second, other] {
                try client.send(.text, Array("still open".utf8))
                #expect(try client.readFrame() == WebSocketFrame(opcode: .text, payload: Array("still open".utf8)))
            }
            return (first, second, other)
        }
        try await blocking {
            // One closes with the closing handshake, the other goes away without a close frame.
            try first.send(.close, WebSocketFrameEncoder.closePayload(.normal))
            #expect(WebSocketTestClient.closeCode(try first.readFrame()) == 1000)
            #expect(first.isClosedByPeer())
            _ = Glibc.shutdown(other.fd, Int32(SHUT_RDWR))
        }
        try await waitUntil("the two closed sockets are no longer counted") { server.openConnectionCount == 1 }
        try await blocking {
            // Their places are back, per client and overall. A place is counted back an instant before its
            // client's: a refusal in that instant is retried, within a bound.
            var again: [WebSocketTestClient] = []
            for source in ["127.0.0.1", "127.0.0.3"] {
                var status = 0
                for _ in 0..<200 where status != 101 {
                    let (client, answer) = try open(from: source)
                    status = answer
                    if status == 101 { again.append(client) } else { Thread.sleep(forTimeInterval: 0.01) }
                }
                #expect(status == 101, "a socket from \(source) once places were freed")
            }
            // Full again: 127.0.0.1 holds two (`second` and the new one), the server three.
            #expect(try open(from: "127.0.0.1").1 == 503)
            #expect(try open(from: "127.0.0.4").1 == 503)
            // Gone before the shutdown, which would otherwise wait its grace period for their closing handshakes.
            for client in again + [second] { _ = Glibc.shutdown(client.fd, Int32(SHUT_RDWR)) }
        }
        await server.shutdown()
    }

    @Test("handshake refusals: version 8 is 426 with the version, no key 400, a foreign origin 403, plain GET 426")
    func refusals() async throws {
        let (server, port, _) = try startEchoServer()
        try await blocking {
            func head(_ request: String) throws -> (status: Int, headers: [String: String]) {
                let client = try WebSocketTestClient(port: port)
                try client.send(request)
                return try client.readHead()
            }
            let version = try head(
                WebSocketTestClient.handshake().replacingOccurrences(of: "Version: 13", with: "Version: 8"))
            #expect(version.status == 426 && version.headers["sec-websocket-version"] == "13")
            let noKey = try head(
                WebSocketTestClient.handshake().replacingOccurrences(
                    of: "Sec-WebSocket-Key: \(WebSocketTestClient.key)\r\n", with: ""))
            #expect(noKey.status == 400)
            #expect(try head(WebSocketTestClient.handshake(extra: "Origin: https://evil.example\r\n")).status == 403)
            #expect(try head(WebSocketTestClient.handshake(extra: "Origin: https://mail.example\r\n")).status == 101)
            let plain = try head("GET /ws HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(plain.status == 426 && plain.headers["upgrade"] == "websocket")
            #expect(try head(WebSocketTestClient.handshake(extra: "Sec-WebSocket-Protocol: refuse\r\n")).status == 401)
        }
        await server.shutdown()
    }

    @Test("an unmasked frame is closed with 1002, invalid UTF-8 with 1007, a message over the limit with 1009")
    func failures() async throws {
        let (server, port, _) = try startEchoServer { $0.maxMessageBytes = 1000 }
        try await blocking {
            for (bytes, code) in [
                (WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: [0x61])), UInt16(1002)),
                (WebSocketFrameEncoder.encodeMasked(WebSocketFrame(opcode: .text, payload: [0xC0, 0x80]), mask: (1, 1, 1, 1)), 1007),
                (WebSocketFrameEncoder.encodeMasked(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 1001)), mask: (1, 1, 1, 1)), 1009),
            ] {
                let client = try WebSocketTestClient(port: port)
                try client.send(WebSocketTestClient.handshake())
                #expect(try client.readHead().status == 101)
                try client.send(bytes)
                #expect(WebSocketTestClient.closeCode(try client.readFrame()) == code)
                #expect(client.isClosedByPeer())
            }
        }
        await server.shutdown()
    }

    @Test("the server pings, and closes a client that answers nothing")
    func keepAlive() async throws {
        let (server, port, _) = try startEchoServer {
            $0.pingInterval = .seconds(1)
            $0.pongTimeout = .seconds(2)
        }
        try await blocking {
            let client = try WebSocketTestClient(port: port)
            try client.send(WebSocketTestClient.handshake())
            #expect(try client.readHead().status == 101)
            let started = Date()
            #expect(try client.readFrame().opcode == .ping)
            #expect(client.isClosedByPeer())
            #expect(Date().timeIntervalSince(started) < 4)
        }
        await server.shutdown()
    }

    @Test("a reader that lets the send queue fill is closed with 1008")
    func slowReader() async throws {
        let (server, port, _) = try startEchoServer { $0.maxQueuedBytes = 64 * 1024 }
        try await blocking {
            let client = try WebSocketTestClient(port: port, timeout: 10)
            try client.send(WebSocketTestClient.handshake())
            #expect(try client.readHead().status == 101)
            // 32 MiB asked for and not read while it is produced: the kernel's buffers fill, then the queue.
            try client.send(.text, Array("push 128 262144".utf8))
            Thread.sleep(forTimeInterval: 1)
            var close: UInt16?
            var messages = 0
            while close == nil {
                let frame = try client.readFrame()
                if frame.opcode == .close { close = WebSocketTestClient.closeCode(frame) } else { messages += 1 }
            }
            #expect(close == 1008)
            #expect(messages < 128)
        }
        await server.shutdown()
    }

    @Test("the application closes with its code; shutdown closes open sockets with 1001")
    func serverCloses() async throws {
        let (server, port, _) = try startEchoServer()
        let client = try await blocking {
            let client = try WebSocketTestClient(port: port)
            try client.send(WebSocketTestClient.handshake())
            #expect(try client.readHead().status == 101)
            try client.send(.text, Array("bye".utf8))
            #expect(WebSocketTestClient.closeCode(try client.readFrame()) == 1008)
            try client.send(.close, WebSocketFrameEncoder.closePayload(.policyViolation))
            #expect(client.isClosedByPeer())

            let open = try WebSocketTestClient(port: port)
            try open.send(WebSocketTestClient.handshake())
            #expect(try open.readHead().status == 101)
            return open
        }
        async let stopped: Void = server.shutdown()
        try await blocking {
            #expect(WebSocketTestClient.closeCode(try client.readFrame()) == 1001)
            try client.send(.close, WebSocketFrameEncoder.closePayload(.goingAway))
            #expect(client.isClosedByPeer())
        }
        await stopped
    }

    @Test("the handler returning closes with 1000 and throwing with 1011; the socket lives as long as the handler")
    func handlerEnds() async throws {
        let (server, port, responder) = try startEchoServer()
        try await blocking {
            for (word, code) in [("return", UInt16(1000)), ("throw", 1011)] {
                let client = try WebSocketTestClient(port: port)
                try client.send(WebSocketTestClient.handshake())
                #expect(try client.readHead().status == 101)
                try client.send(.text, Array("before".utf8))
                #expect(try client.readFrame() == WebSocketFrame(opcode: .text, payload: Array("before".utf8)))
                try client.send(.text, Array(word.utf8))
                #expect(WebSocketTestClient.closeCode(try client.readFrame()) == code)
                try client.send(.close, WebSocketFrameEncoder.closePayload(.normal))
                #expect(client.isClosedByPeer())
            }
        }
        #expect(responder.ended.load(ordering: .relaxed) == 2)
        await server.shutdown()
    }

    @Test("the client's close and the server's shutdown cancel a handler's task that is waiting on something else")
    func cancellation() async throws {
        let (server, port, responder) = try startEchoServer()
        /// A socket whose handler sleeps an hour.
        @Sendable func sleeping() throws -> WebSocketTestClient {
            let client = try WebSocketTestClient(port: port)
            try client.send(WebSocketTestClient.handshake())
            #expect(try client.readHead().status == 101)
            try client.send(.text, Array("sleep".utf8))
            return client
        }
        try await blocking {
            let client = try sleeping()
            try client.send(.close, WebSocketFrameEncoder.closePayload(.normal, reason: "done"))
            #expect(WebSocketTestClient.closeCode(try client.readFrame()) == 1000)
        }
        try await waitUntil("the client's close cancels the sleeping handler") {
            responder.ended.load(ordering: .relaxed) == 1
        }
        let client = try await blocking { try sleeping() }
        try await waitUntil("the socket is open") { server.openConnectionCount == 1 }
        async let stopped: Void = server.shutdown()
        try await blocking {
            #expect(WebSocketTestClient.closeCode(try client.readFrame()) == 1001)
            try client.send(.close, WebSocketFrameEncoder.closePayload(.goingAway))
        }
        await stopped
        try await waitUntil("the shutdown cancels the second") { responder.ended.load(ordering: .relaxed) == 2 }
    }

    @Test("a handler that leaves more than maxQueuedBytes of the client's messages unread is closed with 1008")
    func unreadLimit() async throws {
        let (server, port, responder) = try startEchoServer { $0.maxQueuedBytes = 1024 }
        try await blocking {
            let client = try WebSocketTestClient(port: port)
            try client.send(WebSocketTestClient.handshake())
            #expect(try client.readHead().status == 101)
            try client.send(.text, Array("sleep".utf8))
            try client.send(.binary, [UInt8](repeating: 1, count: 1000))
            try client.send(.binary, [UInt8](repeating: 2, count: 1000))
            #expect(WebSocketTestClient.closeCode(try client.readFrame()) == 1008)
        }
        try await waitUntil("the handler is cancelled") { responder.ended.load(ordering: .relaxed) == 1 }
        await server.shutdown()
    }
}
