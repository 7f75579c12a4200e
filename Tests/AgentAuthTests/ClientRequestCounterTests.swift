import Testing

@testable import AgentAuth

@Suite("Per-address challenge counters")
struct ClientRequestCounterTests {
    @Test("Counts events of one address within the window and forgets them after it")
    func window() {
        let counter = ClientRequestCounter(capacity: 64)
        for i in 1...12 {
            #expect(counter.record("192.0.2.1", now: 1_000) == i)
        }
        #expect(counter.count("192.0.2.1", now: 1_030) == 12)
        #expect(counter.record("192.0.2.1", now: 1_049) == 13)
        // 1_000 lies in bucket 100; at 1_060 (bucket 106) bucket 100 has left the window.
        #expect(counter.count("192.0.2.1", now: 1_060) == 1)
        #expect(counter.count("192.0.2.1", now: 1_110) == 0)
        #expect(counter.record("192.0.2.1", now: 5_000) == 1)
    }

    @Test("Addresses are counted separately")
    func separate() {
        let counter = ClientRequestCounter(capacity: 64)
        _ = counter.record("192.0.2.1", now: 10)
        _ = counter.record("192.0.2.1", now: 10)
        #expect(counter.record("2001:db8::1", now: 10) == 1)
        #expect(counter.count("192.0.2.1", now: 10) == 2)
        #expect(counter.count("198.51.100.7", now: 10) == 0)
    }

    @Test("A clock that steps back does not lose or double counts")
    func clockBack() {
        let counter = ClientRequestCounter(capacity: 64)
        _ = counter.record("a", now: 100)
        #expect(counter.record("a", now: 95) == 2)
        #expect(counter.count("a", now: 100) == 2)
    }

    @Test("A million distinct addresses never hold more slots than the fixed capacity")
    func bounded() {
        let counter = ClientRequestCounter(capacity: 4_096)
        #expect(counter.capacity == 4_096)
        for i in 0..<1_000_000 {
            _ = counter.record("10.\(i >> 16).\((i >> 8) & 255).\(i & 255)", now: 1_000 + Int64(i / 100_000))
        }
        #expect(counter.occupiedSlots == counter.capacity)
    }

    @Test("An address that keeps asking survives a flood of new addresses")
    func busyAddressSurvives() {
        let counter = ClientRequestCounter(capacity: 256)
        var now: Int64 = 0
        for round in 0..<2_000 {
            if round % 10 == 0 {
                _ = counter.record("203.0.113.9", now: now)
                now += 1
            }
            _ = counter.record("flood-\(round)", now: now)
        }
        // 200 events of the busy address, spread over 200 s: the last 60 s hold 6 buckets of it.
        #expect(counter.count("203.0.113.9", now: now) >= 50)
    }
}
