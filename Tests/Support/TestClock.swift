import ServerKit
import Synchronization

/// A settable clock for tests: Unix seconds for tokens (`now`, `seconds`), and the same time as a
/// ``MonotonicClock`` (`monotonic`, in nanoseconds) for rate limits and counting windows. It moves only
/// when a test advances it.
public final class TestClock: Sendable {
    private let nanos: Mutex<Int64>

    /// Starts at `seconds` (Unix time; 0 for a clock that only stands for a monotonic one).
    public init(_ seconds: Int64 = 1_800_000_000) { nanos = Mutex(seconds * MonotonicClock.nanosecondsPerSecond) }

    /// The current time in whole seconds.
    public var now: Int64 { seconds }
    /// The current time in whole seconds.
    public var seconds: Int64 { nanoseconds / MonotonicClock.nanosecondsPerSecond }
    /// The current time in nanoseconds.
    public var nanoseconds: Int64 { nanos.withLock { $0 } }
    /// This clock as the monotonic clock of a rate limit or window (a test may still move it back, to
    /// check what a table does when a clock misbehaves).
    public var monotonic: MonotonicClock { MonotonicClock { self.nanoseconds } }

    /// Moves the clock by `seconds` (negative moves it back).
    public func advance(_ seconds: Int64) { advance(seconds: seconds) }
    /// Moves the clock by `seconds` (negative moves it back).
    public func advance(seconds: Int64) { advance(nanoseconds: seconds * MonotonicClock.nanosecondsPerSecond) }
    /// Moves the clock by `milliseconds` (negative moves it back).
    public func advance(milliseconds: Int64) { advance(nanoseconds: milliseconds * 1_000_000) }
    /// Moves the clock by `nanoseconds` (negative moves it back).
    public func advance(nanoseconds delta: Int64) { nanos.withLock { $0 += delta } }
}
