import HTTP1
import HTTPServer
import Logging
import Synchronization
import Testing

/// Short work (`HTTPRoute.shortWork`) runs on the loop that read it, a bounded number of requests per turn: a
/// pipelined burst of it on one connection does not keep the loop from its other connections.
@Suite("Short work on the event loop")
struct ShortWorkFairnessTests {
    /// Routes `/short/...` as short work and anything else as ordinary; records the order the loop answers in. The
    /// first short request sends the other client's `/healthz`, so that its bytes are waiting on the loop's other
    /// socket while the burst is being answered.
    private final class Responder: HTTPResponder {
        let order = Mutex<[String]>([])
        let other = Mutex<TestClient?>(nil)

        func route(method: HTTPMethod, path: String) -> HTTPRoute {
            var route = HTTPRoute(bodyLimit: nil, match: path, logName: path)
            route.shortWork = path.hasPrefix("/short/")
            return route
        }

        func respond(to request: HTTPRequest, route: HTTPRoute) -> HTTPAnswer {
            let shorts = order.withLock { order in
                order.append(request.path)
                return order.count { $0.hasPrefix("/short/") }
            }
            if shorts == 1, let client = other.withLock({ $0.take() }) {
                try? client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                other.withLock { $0 = client }
            }
            return .now(.text(.ok, request.path))
        }
    }

    /// Starts a one-loop server answering with `responder`, `perTurn` short requests a turn.
    private func start(_ responder: Responder, perTurn: Int) throws -> (HTTPServer, Int) {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventQueueCount = 1
        configuration.shortRequestsPerTurn = perTurn
        let server = HTTPServer(configuration: configuration, responder: responder, logger: Logger(label: "test.short"))
        return (server, try server.start())
    }

    @Test("A pipelined burst of short requests lets /healthz on the same loop be answered between them, in order")
    func burstDoesNotStarveHealthz() async throws {
        let responder = Responder()
        let (server, port) = try start(responder, perTurn: 4)
        let burst = try TestClient(port: port)
        let health = try TestClient(port: port)
        // Accepted and served once, so the burst's loop already watches its socket.
        #expect(try health.get("/healthz").status == 200)
        responder.order.withLock { $0.removeAll() }
        responder.other.withLock { $0 = health }

        let count = 40
        try burst.send((0..<count).map { "GET /short/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        for index in 0..<count {
            let response = try burst.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "/short/\(index)")
        }
        #expect(try health.readResponse().text == "/healthz")

        let order = responder.order.withLock { $0 }
        let healthz = try #require(order.firstIndex(of: "/healthz"))
        // Without a budget the whole burst, read in one turn, is answered in that turn before the loop polls again:
        // /healthz would come 41st. With 4 a turn it comes within the first turns after its bytes arrived.
        #expect(healthz < count / 2)
        #expect(order.filter { $0.hasPrefix("/short/") }.count == count)
        await server.shutdown()
    }

    @Test("Short requests over the turn's budget are answered all the same, and a budget of one still serves them")
    func budgetOfOne() async throws {
        let responder = Responder()
        let (server, port) = try start(responder, perTurn: 1)
        let client = try TestClient(port: port)
        let count = 12
        try client.send((0..<count).map { "GET /short/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        for index in 0..<count {
            #expect(try client.readResponse().text == "/short/\(index)")
        }
        #expect(try client.get("/healthz").text == "/healthz")
        await server.shutdown()
    }
}
