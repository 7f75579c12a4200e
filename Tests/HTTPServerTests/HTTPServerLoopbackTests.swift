import Foundation
import Glibc
import HTTP1
import PosternTestSupport
import Testing

@testable import HTTPServer

@Suite("HTTPServer over loopback", .timeLimit(.minutes(1)))
struct HTTPServerLoopbackTests {
    @Test("200 requests on one keep-alive connection")
    func keepAlive() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            for i in 0..<200 {
                let response = try client.get("/items/\(i)")
                #expect(response.status == 200)
                #expect(response.text == "item \(i)")
                #expect(response.header("Connection") == nil)
            }
            #expect(server.openConnectionCount == 1)
        }
        await server.shutdown()
    }

    @Test("server headers: Content-Length, Date, Server, nosniff, X-Request-Id generated or echoed")
    func serverHeaders() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            let response = try client.get("/hello")
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.header("Server") == "Postern")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Date")?.hasSuffix(" GMT") == true)
            let generated = try #require(response.header("X-Request-Id"))
            #expect(!generated.isEmpty)
            let second = try client.get("/hello")
            #expect(second.header("X-Request-Id") != generated)
            let echoed = try client.get("/id", headers: "X-Request-Id: abc-123\r\n")
            #expect(echoed.header("X-Request-Id") == "abc-123")
            #expect(echoed.text == "abc-123")
            let unsafe = try client.get("/id", headers: "X-Request-Id: <script>\r\n")
            #expect(unsafe.header("X-Request-Id") != "<script>")
            #expect(try client.get("/peer").text == "127.0.0.1")
        }
        await server.shutdown()
    }

    @Test("HEAD gets the GET headers without a body")
    func head() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse(head: true)
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "5")
            // The next response must follow directly: a body sent for HEAD would corrupt it.
            let next = try client.get("/items/7")
            #expect(next.text == "item 7")
        }
        await server.shutdown()
    }

    @Test("404 and 405 with Allow")
    func notFoundAndMethodNotAllowed() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            let missing = try client.get("/nope")
            #expect(missing.status == 404)
            #expect(missing.text == #"{"error":"not_found"}"#)
            try client.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let wrong = try client.readResponse()
            #expect(wrong.status == 405)
            #expect(wrong.header("Allow") == "GET, HEAD")
        }
        await server.shutdown()
    }

    @Test("three pipelined requests are answered in order even when the first finishes last")
    func pipelining() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            try client.send(
                "GET /slow?ms=300 HTTP/1.1\r\nHost: t\r\n\r\nGET /items/2 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nthird")
            #expect(try client.readResponse().text == "slept 300")
            #expect(try client.readResponse().text == "item 2")
            #expect(try client.readResponse().text == "third")
        }
        await server.shutdown()
    }

    @Test("HTTP/1.0 closes unless keep-alive is asked for")
    func httpOneZero() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let keep = try TestClient(port: port)
            try keep.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try keep.readResponse().header("Connection") == "keep-alive")
            try keep.send("GET /hello HTTP/1.0\r\n\r\n")
            let last = try keep.readResponse()
            #expect(last.header("Connection") == "close")
            #expect(keep.isClosedByPeer())
        }
        await server.shutdown()
    }

    @Test("Connection: close is honoured after the response")
    func connectionClose() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            let response = try client.get("/hello", headers: "Connection: close\r\n")
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
        await server.shutdown()
    }

    @Test("Expect: 100-continue gets 100 before the body is sent")
    func expectContinue() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            #expect(try client.readResponse().status == 100)
            try client.send("body")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "body")
        }
        await server.shutdown()
    }

    @Test("a body over the route's limit is refused with 413 before it is sent")
    func bodyLimit() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            try client.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(response.header("Connection") == "close")
            let fits = try TestClient(port: port)
            try fits.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123456789")
            #expect(try fits.readResponse().text == "10")
            let chunked = try TestClient(port: port)
            try chunked.send(
                "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
            #expect(try chunked.readResponse().text == "abc")
        }
        await server.shutdown()
    }

    @Test("a framing error gets 400 and closes only its own connection")
    func framingErrorIsolated() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let good = try TestClient(port: port)
            #expect(try good.get("/hello").status == 200)
            let bad = try TestClient(port: port)
            try bad.send(
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
            let refused = try bad.readResponse()
            #expect(refused.status == 400)
            #expect(refused.header("Connection") == "close")
            #expect(refused.text == #"{"error":"bad_request"}"#)  // a code only: nothing parsed is echoed
            #expect(bad.isClosedByPeer())
            #expect(try good.get("/hello").status == 200)
        }
        await server.shutdown()
    }

    @Test("1000 concurrent keep-alive connections are all answered, twice")
    func thousandConnections() async throws {
        // One address for all of them: past the per-client cap, which this test is not about.
        let (server, port) = try startServer { $0.maxConnectionsPerClient = 0 }
        try await blocking {
            var clients: [TestClient] = []
            for _ in 0..<1000 { clients.append(try TestClient(port: port, timeout: 20)) }
            for round in 0..<2 {
                for (i, client) in clients.enumerated() {
                    try client.send("GET /items/\(i)-\(round) HTTP/1.1\r\nHost: t\r\n\r\n")
                }
                for (i, client) in clients.enumerated() {
                    let response = try client.readResponse()
                    #expect(response.status == 200)
                    #expect(response.text == "item \(i)-\(round)")
                }
            }
            #expect(server.openConnectionCount == 1000)
            clients.removeAll()
        }
        await server.shutdown()
        #expect(server.openConnectionCount == 0)
    }

    @Test("300 connections stuck mid-header neither delay others nor outlive the header timeout")
    func slowClients() async throws {
        let (server, port) = try startServer { $0.headerReadTimeout = .seconds(1) }
        try await blocking {
            func latency() throws -> Double {
                let client = try TestClient(port: port)
                var samples: [Double] = []
                for _ in 0..<5 {
                    let start = monotonicSeconds()
                    _ = try client.get("/hello")
                    samples.append(monotonicSeconds() - start)
                }
                return samples.sorted()[2]
            }
            let baseline = try latency()
            var stuck: [TestClient] = []
            for _ in 0..<300 {
                let client = try TestClient(port: port, timeout: 4)
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
                stuck.append(client)
            }
            let opened = monotonicSeconds()
            let loaded = try latency()
            #expect(loaded - baseline < 0.1)
            // Each stuck connection gets a 408 and EOF once the 1 s header timeout passes.
            for client in stuck {
                #expect(client.isClosedByPeer())
            }
            let closedAfter = monotonicSeconds() - opened
            #expect(closedAfter < 3.5)
            #expect(try TestClient(port: port).get("/hello").status == 200)
        }
        await server.shutdown()
    }

    @Test("idle keep-alive connections are closed after the idle timeout")
    func idleTimeout() async throws {
        let (server, port) = try startServer { $0.idleTimeout = .milliseconds(500) }
        try await blocking {
            let client = try TestClient(port: port, timeout: 3)
            #expect(try client.get("/hello").status == 200)
            let start = monotonicSeconds()
            #expect(client.isClosedByPeer())
            #expect(monotonicSeconds() - start >= 0.4)
        }
        await server.shutdown()
    }

    @Test("over the connection cap: 503 and close, served connections unaffected")
    func connectionCap() async throws {
        let (server, port) = try startServer { $0.maxConnections = 2 }
        try await blocking {
            let first = try TestClient(port: port)
            let second = try TestClient(port: port)
            #expect(try first.get("/hello").status == 200)
            #expect(try second.get("/hello").status == 200)
            let third = try TestClient(port: port)
            try third.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let refused = try third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Connection") == "close")
            #expect(third.isClosedByPeer())
            #expect(try first.get("/hello").status == 200)
        }
        await server.shutdown()
    }

    @Test("half-sent headers from one address fill its own cap, not the server's: others are still served")
    func perClientCap() async throws {
        let (server, port) = try startServer {
            $0.maxConnections = 8
            $0.maxConnectionsPerClient = 3
        }
        try await blocking {
            // Slowloris: three connections that never finish their headers.
            // Each is adopted before the next connects, so that the fourth, not one of them, meets the cap.
            var slow: [TestClient] = []
            for index in 0..<3 {
                slow.append(try TestClient(port: port))
                try slow[index].send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
                // Bounded: a blocking wait is not cancelled by the suite's time limit.
                for _ in 0..<2_000 where server.openConnectionCount < index + 1 { Thread.sleep(forTimeInterval: 0.005) }
                try #require(server.openConnectionCount >= index + 1, "slow connection \(index) never adopted")
            }
            let fourth = try TestClient(port: port)
            try fourth.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let refused = try fourth.readResponse()
            #expect(refused.status == 503)
            #expect(fourth.isClosedByPeer())
            // Another address is another client.
            let other = try TestClient(port: port, from: "127.0.0.2")
            #expect(try other.get("/hello").status == 200)
            withExtendedLifetime(slow) {}
        }
        // The slow clients are closed now: their places come back once the server has seen them go.
        try await blocking {
            var placed = false
            for _ in 0..<200 where !placed {
                let client = try TestClient(port: port)
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                placed = try client.readResponse().status == 200
                if !placed { Thread.sleep(forTimeInterval: 0.01) }
            }
            #expect(placed, "the slow connections were closed with their clients, and their places freed")
        }
        await server.shutdown()
    }

    @Test("shutdown finishes an in-flight slow request, then refuses new connections")
    func gracefulShutdown() async throws {
        // One loop: the idle connection's close shows that the shutdown has reached the busy one too. The request
        // waits at a gate, not for a fixed time, which a loaded machine could let pass before the shutdown began.
        let (server, port) = try startServer { $0.eventQueueCount = 1 }
        let busy = try TestClient(port: port)
        let idle = try TestClient(port: port)
        try await blocking {
            #expect(try idle.get("/hello").status == 200)
            try busy.send("GET /gated HTTP/1.1\r\nHost: t\r\n\r\n")
        }
        await server.completedTurnAfterNow()  // the request is read and its handler waits at the gate
        let shutdown = Task { await server.shutdown() }
        try await blocking { #expect(idle.isClosedByPeer()) }
        await shutdownGate.open()
        try await blocking {
            let response = try busy.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "opened")
            #expect(response.header("Connection") == "close")
        }
        await shutdown.value
        #expect(server.openConnectionCount == 0)
        #expect(throws: LoopbackSocket.Failure.self) { try TestClient(port: port) }
    }

    @Test("a client that half-closes after pipelining still gets every response")
    func halfClose() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            try client.send("GET /items/a HTTP/1.1\r\nHost: t\r\n\r\nGET /slow?ms=100 HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = Glibc.shutdown(client.fd, Int32(SHUT_WR))
            #expect(try client.readResponse().text == "item a")
            #expect(try client.readResponse().text == "slept 100")
            #expect(client.isClosedByPeer())
        }
        await server.shutdown()
    }

    @Test("a large response to a slow reader is written completely (partial writes)")
    func largeResponse() async throws {
        let (server, port) = try startServer()
        try await blocking {
            let client = try TestClient(port: port)
            let body = String(repeating: "0123456789abcdef", count: 4000)  // 64000 bytes
            // Pipeline many echoes without reading, so the server's socket buffer fills.
            for _ in 0..<40 {
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
            for _ in 0..<40 {
                let response = try client.readResponse()
                #expect(response.body.count == body.utf8.count)
            }
        }
        await server.shutdown()
    }
}

@Suite("HTTPServer with vanishing clients", .timeLimit(.minutes(1)))
struct VanishingClientTests {
    @Test("a client that resets while its pipeline is full is closed at once; others are still served")
    func resetWhileBackPressured() async throws {
        let (server, port) = try startServer()
        do {
            let client = try TestClient(port: port)
            try await blocking {
                // More slow requests than the pipeline takes: reading pauses with no output pending.
                for _ in 0..<20 {
                    try client.send("GET /slow?ms=3000 HTTP/1.1\r\nHost: t\r\n\r\n")
                }
            }
            await server.completedTurnAfterNow()  // the requests are read and reading has paused
            // Abort with RST (linger 0, then the close when `client` goes) without reading anything.
            var abort = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
            _ = Glibc.shutdown(client.fd, Int32(SHUT_RDWR))
        }
        // Closed long before the 3 s handlers finish.
        var waited = 0
        while server.openConnectionCount > 0 && waited < 100 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(server.openConnectionCount == 0)
        let status = try await blocking { try TestClient(port: port).get("/hello").status }
        #expect(status == 200)
        await server.shutdown()
    }
}
