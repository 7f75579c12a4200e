import Glibc
import Logging
import PosternTestSupport
import SocketServer
import Testing

@testable import HTTPServer

/// Binding apart from serving: the real port is known before the server starts, a clash is a bind
/// failure, and a socket is served by one server only.
@Suite("ListeningSocket")
struct ListeningSocketTests {
    private func makeServer() -> HTTPServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventQueueCount = 1
        return HTTPServer(
            configuration: configuration, responder: RouterResponder(router: testRouter()),
            logger: Logger(label: "test.http"))
    }

    @Test("port 0 binds a real port before serving; the server answers on that port")
    func bindThenServe() async throws {
        let socket = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        #expect(socket.host == "127.0.0.1")
        #expect(socket.port > 0)
        let server = makeServer()
        #expect(try server.start(on: socket) == socket.port)
        let port = socket.port
        let text = try await blocking { try TestClient(port: port).get("/hello").text }
        #expect(text == "hello")
        await server.shutdown()
    }

    @Test("a port in use is a bind failure carrying EADDRINUSE")
    func portInUse() throws {
        let first = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        let error = #expect(throws: SocketServerError.self) {
            try ListeningSocket.bind(host: "127.0.0.1", port: first.port)
        }
        #expect(error?.code == .bindFailed)
        #expect(error?.errno == EADDRINUSE)
    }

    @Test("a socket is handed to one server only")
    func servedOnce() async throws {
        let socket = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        let first = makeServer()
        _ = try first.start(on: socket)
        let second = makeServer()
        let error = #expect(throws: SocketServerError.self) { try second.start(on: socket) }
        #expect(error?.code == .alreadyStarted)
        await first.shutdown()
    }

    @Test("a socket no server took is closed when released: its port can be bound again")
    func closedWhenReleased() throws {
        var socket: ListeningSocket? = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        let port = try #require(socket?.port)
        socket = nil
        let again = try ListeningSocket.bind(host: "127.0.0.1", port: port)
        #expect(again.port == port)
    }
}
