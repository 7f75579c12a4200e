import ClientAddress
import Glibc
import PosternTestSupport
import Testing

@testable import SMTPServer

/// One address may not hold every session (issue 32: 128 idle connections from one client gave every other sender
/// `421` for minutes).
@Suite("SMTP sessions per client")
struct SMTPPerClientCapTests {
    @Test("past its own cap a client is told 421 4.3.2 and closed; another address still gets a greeting")
    func perClientCap() async throws {
        let (group, server, port) = try startServer {
            $0.maxConnections = 8
            $0.maxConnectionsPerClient = 2
        }
        // Each greeting read means the session was adopted before the next connects.
        let idle = try (0..<2).map { _ in try LineSocket(port: port) }
        for session in idle { #expect(session.readLine() == "220 mx.test ESMTP Postern") }
        let third = try LineSocket(port: port)
        #expect(third.readLine() == "421 4.3.2 Too many connections, try again later")
        #expect(third.isClosedByPeer())
        let other = try LineSocket(port: port, from: "127.0.0.2")
        #expect(other.readLine() == "220 mx.test ESMTP Postern")
        withExtendedLifetime(idle) {}
        await stop(group, server)
    }
}

/// Behind a balancer in TCP mode: the PROXY header names the client the session serves, and the balancer's own
/// connections are not capped as one client.
@Suite("SMTP behind a PROXY protocol balancer")
struct SMTPProxyProtocolTests {
    @Test("a balancer's connections carry their client into the envelope and are not capped per client")
    func proxied() async throws {
        let sink = MemorySink()
        let (group, server, port) = try startServer(sink: sink) {
            $0.maxConnectionsPerClient = 1
            $0.proxyProtocolPeers = [try! #require(IPNetwork("127.0.0.1/32"))]
        }
        let sessions = try (0..<3).map { _ in try LineSocket(port: port) }
        for (i, session) in sessions.enumerated() {
            session.send("PROXY TCP4 203.0.113.\(i + 1) 127.0.0.1 4000\(i) 25\r\n")
            #expect(session.readLine() == "220 mx.test ESMTP Postern")
        }
        let first = sessions[0]
        first.send("EHLO client.test\r\n")
        while let line = first.readLine(), line.hasPrefix("250-") {}
        first.send("MAIL FROM:<a@remote.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n")
        #expect(first.readLines(3).last?.hasPrefix("354") == true)
        first.send("Subject: via the balancer\r\n\r\nhi\r\n.\r\n")
        #expect(first.readLine()?.hasPrefix("250") == true)
        #expect(sink.messages.first?.envelope.remoteAddress == "203.0.113.1")
        // Its Received field names the client the header named, not the balancer.
        let trace = String(decoding: sink.messages.first?.envelope.traceField ?? [], as: UTF8.self)
        #expect(trace.hasPrefix("Received: from client.test ([203.0.113.1])\r\n"), "\(trace)")
        // Something else on the balancer's address that does not speak the header is closed unanswered.
        let stray = try LineSocket(port: port)
        stray.send("EHLO stray\r\n")
        #expect(stray.isClosedByPeer())
        // Another address is served directly, with its own cap.
        let direct = try LineSocket(port: port, from: "127.0.0.2")
        #expect(direct.readLine() == "220 mx.test ESMTP Postern")
        withExtendedLifetime(sessions) {}
        await stop(group, server)
    }
}
