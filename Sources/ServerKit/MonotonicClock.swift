#if canImport(Glibc)
import Glibc
#endif

/// A clock that never goes back, read in nanoseconds from an arbitrary origin: what every rate limit and
/// counting window runs on, so that a wall-clock step neither refills a bucket early, nor locks a client
/// out, nor stretches or resets a window.
///
/// Only the difference of two readings means anything. Token times (`iat`, `exp`, `created_at`) follow
/// the wall clock instead, a `@Sendable () -> Int64` of Unix seconds injected next to this one.
public struct MonotonicClock: Sendable {
    /// Nanoseconds in one second.
    public static let nanosecondsPerSecond: Int64 = 1_000_000_000

    private let read: @Sendable () -> Int64

    /// A clock that reads `nanoseconds`; tests pass a settable one (`TestClock.monotonic`).
    /// - Warning: `nanoseconds` must not decrease. The tables hold each client's time where it last was
    ///   when it does, but a clock that steps back stalls every refill and window until it has caught up.
    public init(nanoseconds: @escaping @Sendable () -> Int64) {
        read = nanoseconds
    }

    /// Nanoseconds since the clock's origin.
    public var now: Int64 { read() }

    /// The system's monotonic clock (`ContinuousClock`), from the first time any code reads it.
    public static let system: MonotonicClock = {
        #if canImport(Glibc)
        // What `ContinuousClock` reads on Linux (CLOCK_BOOTTIME), without its `Duration`: splitting a
        // `Duration` into components divides 128-bit integers, which showed in every request (the responder
        // reads the clock twice; figures in docs/performance.md).
        let origin = bootTimeNanoseconds()
        return MonotonicClock { bootTimeNanoseconds() &- origin }
        #else
        let origin = ContinuousClock.now
        return MonotonicClock { (ContinuousClock.now - origin).nanoseconds }
        #endif
    }()

    #if canImport(Glibc)
    /// CLOCK_BOOTTIME in nanoseconds.
    private static func bootTimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) &* nanosecondsPerSecond &+ Int64(time.tv_nsec)
    }
    #endif
}

extension Duration {
    /// The duration in whole nanoseconds (truncated; saturating past about 292 years).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: MonotonicClock.nanosecondsPerSecond)
        if overflow { return seconds < 0 ? .min : .max }
        return whole + attoseconds / 1_000_000_000
    }
}
