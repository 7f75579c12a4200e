import Testing

@testable import SocketServer

@Suite("ConnectionTimeouts with a mock clock")
struct ConnectionTimeoutsTests {
    let second: UInt64 = 1_000_000_000

    func timeouts(now: UInt64 = 0) -> ConnectionTimeouts {
        ConnectionTimeouts(headerRead: .seconds(10), idle: .seconds(30), write: .seconds(5), now: now)
    }

    @Test("idle connections expire after the idle timeout")
    func idle() {
        let t = timeouts(now: 100)
        #expect(!t.isExpired(now: 100 + 30 * second - 1))
        #expect(t.isExpired(now: 100 + 30 * second))
    }

    @Test("a request being read expires after the header timeout from its first byte")
    func reading() {
        var t = timeouts()
        t.enter(.readingRequest, now: 5 * second)
        t.enter(.readingRequest, now: 9 * second)  // more bytes of the same request: clock keeps running
        #expect(!t.isExpired(now: 15 * second - 1))
        #expect(t.isExpired(now: 15 * second))
    }

    @Test("a running handler never times out")
    func handling() {
        var t = timeouts()
        t.enter(.handling, now: 0)
        #expect(t.deadline == nil)
        #expect(!t.isExpired(now: 1_000 * second))
    }

    @Test("write progress restarts the write timeout")
    func writing() {
        var t = timeouts()
        t.enter(.writing, now: 0)
        t.enter(.writing, now: 4 * second)
        #expect(!t.isExpired(now: 8 * second))
        #expect(t.isExpired(now: 9 * second))
    }

    @Test("returning to idle restarts the idle clock")
    func backToIdle() {
        var t = timeouts()
        t.enter(.handling, now: 0)
        t.enter(.idle, now: 100 * second)
        #expect(!t.isExpired(now: 129 * second))
        #expect(t.isExpired(now: 130 * second))
    }
}
