import Foundation
import PosternTestSupport
import Synchronization
import Testing

@testable import HTTPServer

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let nanoseconds = Atomic<UInt64>(1_000_000_000)
    var now: UInt64 { nanoseconds.load(ordering: .relaxed) }
    func advance(seconds: UInt64) { nanoseconds.add(seconds * 1_000_000_000, ordering: .relaxed) }
}

@Suite("HTTPServer timeouts follow the injected clock")
struct InjectedClockTests {
    @Test("the default 10 s header timeout and 30 s idle timeout fire when the clock says so")
    func injectedClock() async throws {
        let clock = ManualClock()
        let (server, port) = try startServer { $0.clock = { clock.now } }
        let slow = try TestClient(port: port, timeout: 3)
        let idle = try TestClient(port: port, timeout: 3)
        try await blocking {
            try slow.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
            #expect(try idle.get("/hello").status == 200)
        }
        // The server has read the partial request before the clock moves.
        await server.completedTurnAfterNow()
        // 9 s of fake time: nothing may close yet, once the loops have looked at the clock again.
        clock.advance(seconds: 9)
        await server.completedTurnAfterNow()
        #expect(server.openConnectionCount == 2)
        // Past the header timeout: the slow request's connection goes, the idle one stays.
        clock.advance(seconds: 2)
        try await blocking {
            let response = try slow.readResponse()
            #expect(response.status == 408)
            #expect(slow.isClosedByPeer())
        }
        #expect(server.openConnectionCount == 1)
        // Past the idle timeout too.
        clock.advance(seconds: 30)
        try await blocking { #expect(idle.isClosedByPeer()) }
        #expect(server.openConnectionCount == 0)
        await server.shutdown()
    }
}
