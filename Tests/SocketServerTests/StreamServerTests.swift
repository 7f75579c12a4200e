import Foundation
import Logging
import Testing

@testable import SocketServer

@Suite("StreamServer serves any protocol's state machine on shared event loops", .timeLimit(.minutes(1)))
struct StreamServerTests {
    func start(
        _ group: EventLoopGroup, idle: Duration = .seconds(30),
        _ configure: (inout StreamServerConfiguration) -> Void = { _ in }
    ) throws -> (StreamServer, Int) {
        var configuration = StreamServerConfiguration()
        configure(&configuration)
        let server = StreamServer(
            configuration: configuration, service: LineEchoService(idle: ConnectionTimeouts.nanoseconds(idle)),
            group: group, logger: Logger(label: "test.stream"))
        let port = try server.start(on: ListeningSocket.bind(host: "127.0.0.1", port: 0))
        return (server, port)
    }

    @Test("a line protocol: greeting, answers completed off the loop in order, quit closes")
    func lineProtocol() async throws {
        let group = try EventLoopGroup(count: 2)
        group.startOnce()
        let (server, port) = try start(group)
        let client = try LineClient(port: port)
        client.send("one\r\ntwo\r\n")
        #expect(client.readLines(3) == ["hello", "echo: one", "echo: two"])
        client.send("quit\r\n")
        #expect(client.readLines(1) == ["bye"])
        #expect(client.isClosedByPeer())
        await server.shutdown()
        await group.shutdownJoining()
    }

    @Test("two servers on one group: shutting one down leaves the other's connections alone")
    func twoServersOneGroup() async throws {
        let group = try EventLoopGroup(count: 2)
        group.startOnce()
        let (first, firstPort) = try start(group)
        let (second, secondPort) = try start(group)
        let a = try LineClient(port: firstPort)
        let b = try LineClient(port: secondPort)
        #expect(a.readLines(1) == ["hello"])
        #expect(b.readLines(1) == ["hello"])
        await first.shutdown()
        #expect(a.isClosedByPeer())
        b.send("still here\r\n")
        #expect(b.readLines(1) == ["echo: still here"])
        #expect(second.openConnectionCount == 1)
        await second.shutdown()
        await group.shutdownJoining()
    }

    @Test("every loop accepts: while one loop is held busy, new clients are served by another")
    func everyLoopAccepts() async throws {
        let group = try EventLoopGroup(count: 2)
        group.startOnce()
        let (server, port) = try start(group)
        for busy in group.loops {
            let release = DispatchSemaphore(value: 0)
            busy.execute { release.wait() }
            busy.epoll.wake()  // its thread leaves epoll_wait and waits for the queue the block holds
            try await Task.sleep(for: .milliseconds(50))
            let client = try LineClient(port: port)  // times out after 3 s
            let greeting = client.readLines(1)
            release.signal()
            #expect(greeting == ["hello"], "loop \(busy.index) busy")
            client.send("quit\r\n")
            #expect(client.readLines(1) == ["bye"])
        }
        await server.shutdown()
        await group.shutdownJoining()
    }

    @Test("shutdown waits for a job in flight, writes its answer, then closes")
    func gracefulShutdown() async throws {
        let group = try EventLoopGroup(count: 1)
        group.startOnce()
        let (server, port) = try start(group)
        let client = try LineClient(port: port)
        #expect(client.readLines(1) == ["hello"])
        client.send("slow\r\n")
        await group.completedTurnAfterNow()  // the line is read and its job under way
        await server.shutdown()
        #expect(client.readLines(1) == ["echo: slow"])
        #expect(client.isClosedByPeer())
        #expect(server.openConnectionCount == 0)
        await group.shutdownJoining()
    }

    @Test("the machine's timer closes an idle connection")
    func idleTimer() async throws {
        let group = try EventLoopGroup(count: 1, pollInterval: .milliseconds(20))
        group.startOnce()
        let (server, port) = try start(group, idle: .milliseconds(100))
        let client = try LineClient(port: port)
        #expect(client.readLines(1) == ["hello"])
        #expect(client.isClosedByPeer())
        #expect(server.openConnectionCount == 0)
        await server.shutdown()
        await group.shutdownJoining()
    }

    @Test("a listener can be started once; a second start is refused")
    func startTwice() async throws {
        let group = try EventLoopGroup(count: 1)
        group.startOnce()
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        let server = StreamServer(
            configuration: StreamServerConfiguration(), service: LineEchoService(idle: 1_000_000_000),
            group: group, logger: Logger(label: "test.stream"))
        try server.start(on: listener)
        #expect(throws: SocketServerError.self) { try server.start(on: listener) }
        await server.shutdown()
        await group.shutdownJoining()
    }

    @Test("a second listener on a started server is refused, closed, and leaves no descriptor open")
    func secondListener() async throws {
        let group = try EventLoopGroup(count: 2)
        group.startOnce()
        let (server, _) = try start(group)
        // Each acceptor keeps a /dev/null descriptor for EMFILE: a refused start that leaked its acceptors' would
        // leave two more after every attempt. The count is the whole process's, which suites running beside this
        // one move as they start and stop servers, so up to five attempts are made and one must leave it as it was.
        var counts: [(before: Int, after: Int)] = []
        while counts.count < 5 && counts.last.map({ $0.before != $0.after }) ?? true {
            let second = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
            let reserves = Self.descriptors(openOn: "/dev/null")
            #expect(throws: SocketServerError.self) { try server.start(on: second) }
            counts.append((reserves, Self.descriptors(openOn: "/dev/null")))
            #expect(throws: (any Error).self) { _ = try LineClient(port: second.port) }  // connection refused
        }
        #expect(counts.contains { $0.before == $0.after }, "descriptors on /dev/null before and after: \(counts)")
        await server.shutdown()
        await group.shutdownJoining()
    }

    /// How many of this process's descriptors are open on `path`.
    static func descriptors(openOn path: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path
        }
        .count
    }

    @Test("binding a port in use names the address and port")
    func bindClash() throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        let error = #expect(throws: SocketServerError.self) {
            _ = try ListeningSocket.bind(host: "127.0.0.1", port: listener.port)
        }
        #expect(error?.description.hasPrefix("cannot listen on 127.0.0.1:\(listener.port): ") == true)
    }
}
