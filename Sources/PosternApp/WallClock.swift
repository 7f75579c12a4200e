import Glibc

/// The wall clock a runtime reads, injected once and passed to every part that needs the time of day: tokens, mail
/// authentication, purges, webhook deliveries and retries. Tests give a runtime a settable one; nothing of a
/// runtime reads the system's real-time clock but through ``system``.
///
/// Durations and rate limits run on a monotonic clock instead (`MonotonicClock`), which a step of this one does not
/// move.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads Unix time in milliseconds.
    public init(milliseconds: @escaping @Sendable () -> Int64) {
        read = milliseconds
    }

    /// A clock that reads Unix time in whole seconds (its milliseconds are always a whole number of seconds).
    public init(seconds: @escaping @Sendable () -> Int64) {
        read = { seconds() &* 1000 }
    }

    /// Unix time in milliseconds.
    public var milliseconds: Int64 { read() }

    /// Unix time in whole seconds.
    public var seconds: Int64 { Self.floorDivide(read(), 1000) }

    /// This clock as the `() -> Int64` of Unix seconds that the surfaces take.
    public var secondsReader: @Sendable () -> Int64 { { seconds } }

    /// This clock as the `() -> Int64` of Unix milliseconds (the webhook dispatcher's).
    public var millisecondsReader: @Sendable () -> Int64 { read }

    /// The system's real-time clock (`CLOCK_REALTIME`).
    public static let system = WallClock(milliseconds: {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) &* 1000 &+ Int64(time.tv_nsec) / 1_000_000
    })

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
