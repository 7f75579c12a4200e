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
