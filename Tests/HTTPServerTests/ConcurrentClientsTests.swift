import Foundation
import Glibc
import PosternTestSupport
import Testing

/// Many clients at once, mixing answers given inline on the event queues with answers that arrive later
/// from the cooperative pool, some clients resetting with requests in flight. Besides checking the order
/// and completeness of what arrives, this is the test that puts those cross-thread paths (completion hop
/// onto the queue, close racing a late completion, both event queues busy) under `make sanitize`.
@Suite("HTTPServer with many concurrent clients")
struct ConcurrentClientsTests {
    @Test("8 clients pipelining inline and deferred requests, some resetting mid-flight: answers in order, nothing left open")
    func mixedPipelines() async throws {
        let (server, port) = try startServer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<8 {
                group.addTask {
                    try await blocking {
                        var connection = try TestClient(port: port, timeout: 20)
                        for round in 0..<15 {
                            let tag = "\(client)-\(round)"
                            try connection.send(
                                "GET /items/\(tag)-a HTTP/1.1\r\nHost: t\r\n\r\n"
                                    + "GET /slow?ms=\(round % 4) HTTP/1.1\r\nHost: t\r\n\r\n"
                                    + "GET /items/\(tag)-c HTTP/1.1\r\nHost: t\r\n\r\n")
                            if client % 2 == 1 && round % 5 == 4 {
                                // Reset with the deferred answer still pending, then carry on afresh.
                                var abort = linger(l_onoff: 1, l_linger: 0)
                                setsockopt(
                                    connection.fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
                                connection = try TestClient(port: port, timeout: 20)
                                continue
                            }
                            #expect(try connection.readResponse().text == "item \(tag)-a")
                            #expect(try connection.readResponse().text == "slept \(round % 4)")
                            #expect(try connection.readResponse().text == "item \(tag)-c")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        await server.shutdown()
        #expect(server.openConnectionCount == 0)
    }
}
