import Synchronization

/// A settable clock for tests: Unix seconds for tokens (`now`, `seconds`), milliseconds for rate
/// limiters (`milliseconds`). It moves only when a test advances it.
public final class TestClock: Sendable {
    private let millis: Mutex<Int64>

    /// Starts at `seconds` (Unix time; 0 for a monotonic clock).
    public init(_ seconds: Int64 = 1_800_000_000) { millis = Mutex(seconds * 1000) }

    /// The current time in whole seconds.
    public var now: Int64 { seconds }
    /// The current time in whole seconds.
    public var seconds: Int64 { millis.withLock { $0 / 1000 } }
    /// The current time in milliseconds.
    public var milliseconds: Int64 { millis.withLock { $0 } }

    /// Moves the clock by `seconds` (negative moves it back).
    public func advance(_ seconds: Int64) { advance(milliseconds: seconds * 1000) }
    /// Moves the clock by `seconds` (negative moves it back).
    public func advance(seconds: Int64) { advance(milliseconds: seconds * 1000) }
    /// Moves the clock by `milliseconds` (negative moves it back).
    public func advance(milliseconds delta: Int64) { millis.withLock { $0 += delta } }
}
