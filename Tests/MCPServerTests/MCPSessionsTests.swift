import MCPServer
import Synchronization
import Testing

@Suite("MCPSessions")
struct MCPSessionsTests {
    final class Clock: Sendable {
        let now = Mutex<Int64>(1000)
        func advance(_ seconds: Int64) { now.withLock { $0 += seconds } }
    }

    @Test("a session answers only the credential that opened it, until it idles out")
    func binding() {
        let clock = Clock()
        let sessions = MCPSessions(capacity: 10, idleSeconds: 60) { clock.now.withLock { $0 } }
        let id = sessions.open(credential: [1, 2, 3], protocolVersion: "2025-06-18")
        #expect(sessions.use(id, credential: [1, 2, 3]) == "2025-06-18")
        #expect(sessions.use(id, credential: [9, 9, 9]) == nil)
        #expect(sessions.use("made-up", credential: [1, 2, 3]) == nil)
        clock.advance(59)
        #expect(sessions.use(id, credential: [1, 2, 3]) != nil)
        clock.advance(60)
        #expect(sessions.use(id, credential: [1, 2, 3]) == nil)
    }

    @Test("the least recently used session makes way at capacity; close ends only one's own")
    func capacity() {
        let clock = Clock()
        let sessions = MCPSessions(capacity: 2, idleSeconds: 600) { clock.now.withLock { $0 } }
        let first = sessions.open(credential: [1], protocolVersion: "v")
        clock.advance(1)
        let second = sessions.open(credential: [1], protocolVersion: "v")
        clock.advance(1)
        #expect(sessions.use(first, credential: [1]) != nil)
        clock.advance(1)
        let third = sessions.open(credential: [1], protocolVersion: "v")
        #expect(sessions.count == 2)
        #expect(sessions.use(second, credential: [1]) == nil)
        #expect(sessions.close(third, credential: [2]) == false)
        #expect(sessions.close(third, credential: [1]))
        #expect(sessions.use(third, credential: [1]) == nil)
        #expect(sessions.use(first, credential: [1]) != nil)
    }
}
