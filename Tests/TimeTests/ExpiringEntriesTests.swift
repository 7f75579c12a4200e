import Testing
import Time

@Suite("Expiring entries")
struct ExpiringEntriesTests {
    /// Entries whose value is the Unix second they lapse at, live strictly before it.
    static func entries(capacity: Int) -> ExpiringEntries<String, Int64> {
        ExpiringEntries(capacity: capacity) { until, now in until > now }
    }

    @Test("below the bound every entry stays, lapsed or not, and a key replaced is not counted twice")
    func belowTheBound() {
        var entries = Self.entries(capacity: 3)
        let dropped = [
            entries.insert(10, for: "a", now: 0), entries.insert(20, for: "b", now: 15),
            entries.insert(30, for: "b", now: 16),
        ]
        #expect(dropped == [false, false, false])
        #expect(entries.count == 2)
        #expect(entries["a"] == 10)
        #expect(entries["b"] == 30)
    }

    @Test("when full, an insertion drops the entries lapsed at its time and keeps the live")
    func fullDropsTheLapsed() {
        var entries = Self.entries(capacity: 3)
        entries.insert(10, for: "a", now: 0)
        entries.insert(20, for: "b", now: 0)
        entries.insert(30, for: "c", now: 0)
        // At 20, "a" (until 10) and "b" (until 20, not live at 20) have lapsed; "c" has not.
        let dropped = entries.insert(40, for: "d", now: 20)
        #expect(dropped)
        #expect(entries.entries == ["c": 30, "d": 40])
    }

    @Test("when full and every entry is live, all go before the insertion")
    func fullOfLiveDropsAll() {
        var entries = Self.entries(capacity: 2)
        entries.insert(100, for: "a", now: 0)
        entries.insert(100, for: "b", now: 0)
        let droppedForC = entries.insert(100, for: "c", now: 50)
        #expect(droppedForC)
        #expect(entries.entries == ["c": 100])
        // The same key again when full still makes room: the bound counts before the insertion.
        entries.insert(100, for: "d", now: 50)
        let droppedForD = entries.insert(200, for: "d", now: 50)
        #expect(droppedForD)
        #expect(entries.entries == ["d": 200])
    }

    @Test("a capacity below one keeps one entry; removing and clearing leave nothing behind")
    func capacityAndRemoval() {
        var entries = Self.entries(capacity: 0)
        #expect(entries.capacity == 1)
        let dropped = [entries.insert(5, for: "a", now: 0), entries.insert(6, for: "b", now: 0)]
        #expect(dropped == [false, true])
        #expect(entries.entries == ["b": 6])
        let removed = [entries.removeValue(forKey: "b"), entries.removeValue(forKey: "b")]
        #expect(removed == [6, nil])
        entries.insert(7, for: "c", now: 0)
        entries.removeAll()
        #expect(entries.count == 0)
    }
}
