import ClientAddress
import PosternTestSupport
import Testing

@testable import ServerKit

@Suite("Per-client event counter")
struct ClientEventCounterTests {
    static func key(_ peer: String) -> ClientAddressKey { ClientAddressKey(peer: peer) }

    @Test("Counts events of one client within the window and forgets them after it")
    func window() {
        let clock = TestClock(1_000)
        let counter = ClientEventCounter(capacity: 64, clock: clock.monotonic)
        let client = Self.key("192.0.2.1")
        for i in 1...12 { #expect(counter.record(client) == i) }
        clock.advance(30)
        #expect(counter.count(client) == 12)
        clock.advance(19)
        #expect(counter.record(client) == 13)
        // 1_000 lies in bucket 100; at 1_060 (bucket 106) bucket 100 has left the window.
        clock.advance(11)
        #expect(counter.count(client) == 1)
        clock.advance(50)
        #expect(counter.count(client) == 0)
        clock.advance(3_890)
        #expect(counter.record(client) == 1)
    }

    @Test("Clients are counted separately; IPv6 clients per /64")
    func separate() {
        let counter = ClientEventCounter(capacity: 64, clock: TestClock(10).monotonic)
        _ = counter.record(Self.key("192.0.2.1"))
        _ = counter.record(Self.key("192.0.2.1"))
        #expect(counter.record(Self.key("2001:db8::1")) == 1)
        #expect(counter.record(Self.key("2001:db8::2")) == 2)
        #expect(counter.count(Self.key("192.0.2.1")) == 2)
        #expect(counter.count(Self.key("198.51.100.7")) == 0)
        #expect(counter.occupiedCount == 2)
    }

    @Test("A clock that steps back does not lose or double counts")
    func clockBack() {
        let clock = TestClock(100)
        let counter = ClientEventCounter(capacity: 64, clock: clock.monotonic)
        _ = counter.record(Self.key("a"))
        clock.advance(-5)
        #expect(counter.record(Self.key("a")) == 2)
        clock.advance(5)
        #expect(counter.count(Self.key("a")) == 2)
    }

    @Test("A quarter of a million distinct addresses never hold more slots than the fixed capacity")
    func bounded() {
        let clock = TestClock(1_000)
        let counter = ClientEventCounter(capacity: 4_096, clock: clock.monotonic)
        #expect(counter.capacity == 4_096)
        for i in 0..<250_000 {
            _ = counter.record(Self.key("10.\(i >> 16).\((i >> 8) & 255).\(i & 255)"))
            if i % 25_000 == 24_999 { clock.advance(1) }
        }
        #expect(counter.occupiedCount == counter.capacity)
    }

    @Test("A client that keeps asking survives a flood of new addresses")
    func busyClientSurvives() {
        let clock = TestClock(0)
        let counter = ClientEventCounter(capacity: 256, clock: clock.monotonic)
        let busy = Self.key("203.0.113.9")
        for round in 0..<2_000 {
            if round % 10 == 0 {
                _ = counter.record(busy)
                clock.advance(1)
            }
            _ = counter.record(Self.key("flood-\(round)"))
        }
        // 200 events of the busy client, one a second: the last 60 s hold 50 of them.
        #expect(counter.count(busy) == 50)
    }
}
