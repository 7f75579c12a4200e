import PosternTestSupport
import ServerKit
import Testing

@Suite("Monotonic clock")
struct MonotonicClockTests {
    @Test("the system clock counts nanoseconds forward")
    func system() async throws {
        let first = MonotonicClock.system.now
        try await Task.sleep(for: .milliseconds(20))
        let second = MonotonicClock.system.now
        #expect(second - first >= 20_000_000)  // nanoseconds: in microseconds 20 ms would be 20,000
        // A sleep of 20 ms on a busy machine took 14 s once: the bound above is the check; this one only "not for ever".
        #expect(second - first < 3_600 * MonotonicClock.nanosecondsPerSecond)
    }

    @Test("a test clock's monotonic view moves with it, in nanoseconds")
    func testClock() {
        let clock = TestClock(0)
        let monotonic = clock.monotonic
        #expect(monotonic.now == 0)
        clock.advance(seconds: 2)
        clock.advance(milliseconds: 5)
        #expect(monotonic.now == 2_005_000_000)
        #expect(clock.seconds == 2)
        clock.advance(nanoseconds: 7)
        #expect(monotonic.now == 2_005_000_007)
    }
}
