import MCPServer
import Synchronization
import Testing

@Suite("MCPSessions")
struct MCPSessionsTests {
    final class Clock: Sendable {
        let now = Mutex<Int64>(1_700_000_000)
        func advance(_ seconds: Int64) { now.withLock { $0 += seconds } }
        var seconds: Int64 { now.withLock { $0 } }
    }

    static let versions = ["2025-11-25", "2025-06-18"]
    static let secret: [UInt8] = Array(repeating: 1, count: 32)

    @Test("an id is bound to the server's secret: one minted under another secret, same credential, is refused")
    func secret() {
        let clock = Clock()
        let ours = MCPSessions(versions: Self.versions, capacity: 10, lifetimeSeconds: 60, secret: Self.secret) {
            clock.seconds
        }
        let theirs = MCPSessions(
            versions: Self.versions, capacity: 10, lifetimeSeconds: 60, secret: Array(repeating: 2, count: 32)
        ) { clock.seconds }
        let forged = theirs.open(credential: [1, 2, 3], protocolVersion: "2025-06-18")
        #expect(theirs.use(forged, credential: [1, 2, 3]) == "2025-06-18")
        #expect(ours.use(forged, credential: [1, 2, 3]) == nil)
        #expect(ours.close(forged, credential: [1, 2, 3]) == false)
    }

    @Test("a session answers only the credential that opened it, until its lifetime ends")
    func binding() {
        let clock = Clock()
        let sessions = MCPSessions(versions: Self.versions, capacity: 10, lifetimeSeconds: 60, secret: Self.secret) {
            clock.seconds
        }
        let id = sessions.open(credential: [1, 2, 3], protocolVersion: "2025-06-18")
        #expect(sessions.use(id, credential: [1, 2, 3]) == "2025-06-18")
        #expect(sessions.use(id, credential: [9, 9, 9]) == nil)
        #expect(sessions.use("made-up", credential: [1, 2, 3]) == nil)
        var tampered = Array(id.utf8)
        tampered[3] = tampered[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(sessions.use(String(decoding: tampered, as: UTF8.self), credential: [1, 2, 3]) == nil)
        clock.advance(59)
        #expect(sessions.use(id, credential: [1, 2, 3]) != nil)
        clock.advance(1)
        #expect(sessions.use(id, credential: [1, 2, 3]) == nil)
    }

    @Test("another instance (its own table, the same rules) knows the session; a close holds where it was made")
    func instances() {
        let clock = Clock()
        let one = MCPSessions(versions: Self.versions, capacity: 1, lifetimeSeconds: 600, secret: Self.secret) {
            clock.seconds
        }
        let two = MCPSessions(versions: Self.versions, capacity: 1, lifetimeSeconds: 600, secret: Self.secret) {
            clock.seconds
        }
        let first = one.open(credential: [1], protocolVersion: "2025-11-25")
        #expect(two.use(first, credential: [1]) == "2025-11-25")
        #expect(one.close(first, credential: [2]) == false)
        #expect(one.close(first, credential: [1]))
        #expect(one.use(first, credential: [1]) == nil)
        #expect(one.close(first, credential: [1]) == false)
        let second = one.open(credential: [1], protocolVersion: "2025-11-25")
        #expect(one.close(second, credential: [1]))
        #expect(one.use(second, credential: [1]) == nil)
    }
}
